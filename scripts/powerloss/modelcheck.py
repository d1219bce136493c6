"""The resolver on hand-written calls (--check-model)."""

import sys

from .recording import Call
from .resolver import Resolver


def check_model():
    """The resolver on hand-written calls: each writing call the model does not describe is
    refused, and the vectored, positioned and unnamed-file calls are modelled (--check-model)."""
    home = "/h"

    def hexed(text):
        return "".join(f"\\x{byte:02x}" for byte in text.encode())

    def fd(number, path):
        return f"{number}<{hexed(path)}>"

    def resolver_with_file():
        resolver = Resolver(home)
        resolver.names[home + "/d"] = resolver.new_object("dir")
        resolver.initial[resolver.names[home + "/d"]] = []
        resolver.names[home + "/d/f"] = resolver.new_object("file")
        resolver.descriptors[(0, "3")] = resolver.names[home + "/d/f"]
        resolver.descriptors[(0, "4")] = resolver.names[home + "/d"]
        return resolver

    def resolved(name, arguments, result="0"):
        resolver = resolver_with_file()
        operations = resolver.resolve(Call(0, 1, True, 0.0, name, arguments, result))
        return resolver, [resolver.operations[operation] for _, operation in operations]

    refused = {
        "mmap": f"NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, {fd(3, '/h/d/f')}, 0",
        "copy_file_range": f"5<{hexed('/tmp/x')}>, NULL, {fd(3, '/h/d/f')}, NULL, 10, 0",
        "sendfile": f"{fd(3, '/h/d/f')}, 5<{hexed('/tmp/x')}>, NULL, 10",
        "symlink": f'"{hexed("/etc/passwd")}", "{hexed("/h/d/l")}"',
        "rename": f'"{hexed("/h/d/f")}", "{hexed("/h/f")}"',
        "fallocate": f"{fd(3, '/h/d/f')}, FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE, 0, 10",
        "io_uring_setup": "8, 0x7ffd",
        "ioctl": f"{fd(3, '/h/d/f')}, FICLONE, 5",
        "process_madvise": f"{fd(3, '/h/d/f')}",
    }
    failures = []
    for name, arguments in refused.items():
        resolver, _ = resolved(name, arguments, "10")
        if not resolver.problems:
            failures.append(f"{name} was not refused")
    for name, arguments in {"fstat": f"{fd(3, '/h/d/f')}, {{st_mode=S_IFREG|0600}}",
                            "fchmod": f"{fd(3, '/h/d/f')}, 0600", "ioctl": f"1<{hexed('/dev/pts/0')}>, TCGETS"}.items():
        resolver, _ = resolved(name, arguments)
        if resolver.problems:
            failures.append(f"{name} was refused: {resolver.problems}")
    _, operations = resolved("writev", f'{fd(3, "/h/d/f")}, [{{iov_base="{hexed("ab")}", iov_len=2}}, '
                                       f'{{iov_base="{hexed("cd")}", iov_len=2}}], 2', "3")
    if operations != [("write", 0, b"abc")]:
        failures.append(f"writev modelled as {operations}")
    _, operations = resolved("pwritev2", f'{fd(3, "/h/d/f")}, [{{iov_base="{hexed("xy")}", iov_len=2}}], 1, '
                                         f'4096, 0', "2")
    if operations != [("write", 4096, b"xy")]:
        failures.append(f"pwritev2 modelled as {operations}")
    resolver = resolver_with_file()
    resolver.resolve(Call(0, 1, True, 0.0, "openat", f'{fd(4, "/h/d")}, "", O_RDWR|O_TMPFILE, 0600',
                          f"5<{hexed('/h/d/#12 (deleted)')}>"))
    linked = resolver.resolve(Call(0, 1, True, 0.0, "linkat", f'{fd(5, "/h/d/#12 (deleted)")}, "", '
                                   f'AT_FDCWD<{hexed("/h")}>, "{hexed("/h/d/new")}", AT_EMPTY_PATH', "0"))
    if resolver.problems or [resolver.operations[operation][:2] for _, operation in linked] != [("link", "new")]:
        failures.append(f"O_TMPFILE and linkat modelled as {linked} ({resolver.problems})")
    for failure in failures:
        print(f"power-loss model check: {failure}", file=sys.stderr)
    print(f"model check: {len(refused)} calls the model does not describe refused; fstat, fchmod, writev, "
          f"pwritev2, O_TMPFILE and linkat modelled: {'ok' if not failures else 'FAILED'}")
    return 1 if failures else 0
