#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The MPI functions Ibex does not implement, from other implementations' headers.

  missing.py DEF MPI_H KNOWN HEADER...
                                   prints every MPI_X that a HEADER declares (or that MPI 4.1
                                   adds, listed below) and DEF does not implement, one a line,
                                   with the reason KNOWN gives (or "NEW" when it gives none);
                                   then every KNOWN name that DEF does implement, as "STALE"
  missing.py DEF MPI_H KNOWN HEADER... --groups
                                   the README's short list: the known names by reason (not
                                   those removed from MPI in 3.0)

DEF is runtime/mpi/bindings/mpi.def (a `large` or `large_native` line implements X and X_c);
MPI_H is Ibex's include/mpi.h, whose macros (MPI_DUP_FN, ...) count as provided.
KNOWN (bindings/missing.txt) lists what Ibex knows it lacks: `NAME REASON...` lines, `#`
comments; a NAME ending in `*` stands for every name with that prefix. The exit status is 1
when a name is NEW or STALE, so a test (tests/runtime/mpi/missing.sh) fails when an MPI header
declares a function Ibex neither implements nor lists as missing, and when the list is out of
date. The headers are those of MPICH (MPI 4.0, with the _c forms) and Open MPI; the functions
MPI 4.1 added, which neither declares yet, are listed here.
"""
import re
import sys

MPI41 = """Buffer_flush Buffer_iflush Comm_attach_buffer Comm_attach_buffer_c
Comm_detach_buffer Comm_detach_buffer_c Comm_flush_buffer Comm_iflush_buffer
Session_attach_buffer Session_attach_buffer_c Session_detach_buffer Session_detach_buffer_c
Session_flush_buffer Session_iflush_buffer Get_hw_resource_info Remove_error_class
Remove_error_code Remove_error_string Request_get_status_all Request_get_status_any
Request_get_status_some Status_get_error Status_get_source Status_get_tag Status_set_error
Status_set_source Status_set_tag Type_get_value_index Session_c2f Session_f2c""".split()

DECL = re.compile(r"^\s*(?:OMPI_DECLSPEC\s+)?(?:extern\s+)?(?:const\s+)?"
                  r"(?:int|double|MPI_[A-Za-z]+)\s*\*?\s*MPI_([A-Z][A-Za-z0-9_]*)\s*\(", re.M)
DEF_LINE = re.compile(r"^\w+\s+(\w+)\(.*\)\s*(large|large_native)?\s*$")


def implemented(path):
    names = set()
    with open(path) as f:
        for raw in f:
            m = DEF_LINE.match(raw.split("#", 1)[0].strip())
            if m:
                names.add(m.group(1))
                if m.group(2):
                    names.add(m.group(1) + "_c")
    return names


def macros(path):
    with open(path) as f:
        return set(re.findall(r"^#define\s+MPI_([A-Z][A-Za-z0-9_]*)", f.read(), re.M))


def declared(headers):
    names = set(MPI41)
    for h in headers:
        with open(h, errors="replace") as f:
            names.update(DECL.findall(f.read()))
    return {n for n in names if not n.endswith(("_function", "_fn"))}


def known(path):
    out = []
    with open(path) as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if line:
                name, _, reason = line.partition(" ")
                out.append((name, reason.strip()))
    return out


def reason_of(name, table):
    for pat, reason in table:
        if pat == name or (pat.endswith("*") and name.startswith(pat[:-1])):
            return pat, reason
    return None, None


def print_groups(by_reason, table):
    order = [r for _, r in table] + ["NEW"]
    printed = 0
    for reason in sorted(by_reason, key=order.index):
        if reason.startswith("removed"):
            continue
        names = by_reason[reason]
        print("- %s: %s" % (reason, ", ".join("`MPI_%s`" % n for n in names)))
        printed += 1
    if not printed:
        print("- none: only the functions removed in MPI 3.0")


def main(argv):
    groups = "--groups" in argv
    args = [a for a in argv[1:] if a != "--groups"]
    if len(args) < 4:
        sys.exit(__doc__)
    have, table = implemented(args[0]) | macros(args[1]), known(args[2])
    lacking = sorted(declared(args[3:]) - have)
    bad = 0
    by_reason = {}
    for name in lacking:
        pat, reason = reason_of(name, table)
        if reason is None:
            bad += 1
        if not groups:
            print("MPI_%s %s" % (name, reason or "NEW"))
        # a prefix entry stands for its names in the README: MPI_File_* (90 functions)
        shown = pat if pat and pat.endswith("*") else name
        names = by_reason.setdefault(reason or "NEW", [])
        if shown not in names:
            names.append(shown)
    for pat, _ in table:
        if pat in have:
            bad += 1
            print("MPI_%s STALE (implemented, still listed in %s)" % (pat, args[2]))
    if groups:  # the README's list: MPI 4.1 functions only (not those removed in MPI 3.0)
        print_groups(by_reason, table)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
