#!/usr/bin/env python3
"""Power-loss crash states of real saves (issues 22 and 29), for scripts/power-loss-test.sh.

This file is the entry point; the explorer's modules are in scripts/powerloss/ (its __init__.py
names each one's role).

Runs each scenario's host processes under `strace -f`, in a scratch HOME of its own, then replays
the recorded file-system calls against a model of what a power loss can leave on disk, and loads
every distinct state in a fresh host process: as it is, and with the domain file's keys of the
sets removed (a domain that lost the key: the recovery copy alone must answer).

The model is ALICE's ext4 with data=ordered (Pillai et al., "All File Systems Are Not Created
Equal", OSDI 2014), taken strictly:
- a completed fsync/fdatasync of a file makes its contents as written so far persist; sync and
  syncfs make everything persist;
- the writes and truncations to a file after that persist as any prefix of them, the first one
  left out possibly in part: split in halves, in thirds, or at 4 KiB block boundaries, and any
  proper subset of the pieces persisted (later pieces without earlier ones, zeros where an
  append's earlier piece is missing). A write inside one 512-byte sector (512-byte aligned, at
  most 512 bytes) is never torn: ext4 does not tear a single-sector write;
- creating, renaming, linking, unlinking a file and making or removing a directory change a
  directory: those changes persist, in their order, once the directory is fsynced; before that,
  as any prefix of them, independently of other directories and of the files' contents (so a
  rename may persist before the data written before it, unless that data was flushed first);
- a directory whose own entry did not persist is not there, nor anything under it.

Schedules. A save runs the recovery copy on another thread while the calling thread has
CoreFoundation write the domain. Within each save, the calling thread's calls from its first call
on the domain file (or from the copy thread's first call, if earlier) are one sequence, the other
threads' calls another, and every interleaving of the two that keeps each sequence's own order is
explored: all of them, not only the recorded one (interleavings that leave the same model state
are explored once). The calling thread's calls before that (the lock file, the store's
directories) come first: the copy is started after them. Calls outside saves keep their recorded
order (one process at a time).

A crash can come after any call. The host announces each save with `@@begin <set>` and
`@@end <set> <fields>` on its standard output (recorded with the rest), and a suite's removal with
`@@begin-remove` and `@@end-remove`, which tells the sets in flight at each crash point: such a set
must load as it was before that save or after it, and every other set as its last completed save
left it. A removal flushes nothing (`removeSuite` is for scratch suites), so after it a set may
load as before it or with its defaults, until the set's next completed save. A set that loads as
none of these is lost; one holding parts of several is mixed; one that loads with its defaults
and a load error is unreadable (the domain held damaged bytes under the key: the library keeps
them and says so), counted apart, except with the domain's keys removed, where only the recovery
copy answers and an error is a loss.

Every system call is traced. A call on a file or path under the scratch HOME that the model does
not describe (a shared writable mapping, msync of one, copy_file_range, sendfile, splice, an
ioctl, a symbolic link, a rename across directories, fallocate other than extending, io_uring,
any call not known to leave contents and names alone) fails the test: nothing is dropped
silently. `--check-model` runs the resolver on hand-written calls and fails unless it refuses
those. Files are matched by role, not by name: the domain file is
`<configuration directory>/<suite>.plist`; a name in a directory that was ever the source of a
rename is a temporary file (materialized, but its bytes are not told apart, since the library
does not read them); every other file is written as it persisted. A domain file that a
property-list reader does not read as a dictionary loads as an empty domain whatever its bytes
(corelibs tries it for 450 ms first): states that differ only in such bytes are loaded once.

Usage: power-loss-states.py HOST WORK_DIRECTORY STRACE [--scenario TITLE]... [--quiet] [--keep DIRECTORY]
       power-loss-states.py --check-model
--scenario runs only the scenarios named (a scenario with a known failure runs only when named);
--keep writes each losing state into DIRECTORY.
Environment: the host inherits it (APPSETTINGS_INJECTED_FAULT, APPSETTINGS_RECOVERY_COPY_DELAY_MS
for the self-test's host). Prints one line per scenario and a total:
`crash states: N, lost: L, mixed: M, unreadable: U, other keys lost: O` (details of each on
standard error unless --quiet). O counts the states whose domain file lost one of the keys other
code keeps in the suite (in the scenarios whose setup stores them: see OTHER_KEYS in
powerloss/scenarios.py): the domain file, like the recovery copy, must come out of every crash whole.
Exits 1 when L, M or O is not 0, 2 when the recording holds a writing call the model does not describe
or fewer than 50 states were explored.
"""

import os
import sys

# The modules are in scripts/powerloss, beside this file, whatever the working directory.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from powerloss.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
