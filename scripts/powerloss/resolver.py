"""Resolving the recorded calls into operations on files and directories, by identity."""

import os
import re

from . import SUITE
from .recording import annotation, decode, quoted, split_arguments

# Every system call is traced. Calls on a file or path under HOME that are neither modelled below
# nor in this list fail the test: they might write. These read, or change only metadata the
# library does not read (modes, owners, times, extended attributes), or hint the kernel.
CALLS_THAT_DO_NOT_WRITE = {
    "read", "pread64", "readv", "preadv", "preadv2", "stat", "lstat", "fstat", "newfstatat", "statx", "statfs",
    "fstatfs", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "flock",
    "inotify_add_watch", "chdir", "fchdir", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown",
    "fchownat", "utime", "utimes", "futimesat", "utimensat", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
    "llistxattr", "flistxattr", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
    "fremovexattr", "fadvise64", "readahead", "munmap", "madvise", "execve", "poll", "ppoll", "select",
    "pselect6", "epoll_ctl",
}


class Unmodelled(Exception):
    pass


class Resolver:
    """Goes through the calls in recorded order, as the processes saw the files, and turns each
    writing call under HOME into operations on objects (files and directories, by identity)."""

    def __init__(self, home):
        self.home = home
        self.config = os.path.join(home, ".config")
        self.domain_path = os.path.join(self.config, SUITE + ".plist")
        self.names = {home: 0}          # live path -> object
        self.kinds = {0: "dir"}
        self.initial = {0: []}          # object -> operations it starts with (already durable)
        self.next_object = 1
        self.descriptors = {}           # (process, fd) -> object
        self.positions = {}             # (process, fd) -> offset
        self.appending = set()
        self.sizes = {}                 # file object -> live size
        self.scratch_names = set()      # (directory object, name) ever the source of a rename
        self.shared_mappings = []
        self.operations = []            # id -> operation
        self.problems = []

    # Objects

    def new_object(self, kind):
        number = self.next_object
        self.next_object += 1
        self.kinds[number] = kind
        if kind == "file":
            self.sizes[number] = 0
        return number

    def scan_initial(self):
        """The files a setup process left: durable, as they are."""
        for directory, subdirectories, files in os.walk(self.home):
            parent = self.names[directory]
            for name in sorted(subdirectories) + sorted(files):
                path = os.path.join(directory, name)
                kind = "dir" if name in subdirectories else "file"
                number = self.new_object(kind)
                self.names[path] = number
                self.initial[parent].append(self.operation(("link", name, number)))
                if kind == "dir":
                    self.initial[number] = []
                else:
                    with open(path, "rb") as file:
                        data = file.read()
                    self.initial[number] = [self.operation(("write", 0, data))]
                    self.sizes[number] = len(data)

    def operation(self, operation):
        self.operations.append(operation)
        return len(self.operations) - 1

    def under_home(self, path):
        return path is not None and (path == self.home or path.startswith(self.home + "/"))

    def absolute(self, directory_argument, path_argument, process):
        """The path a (dirfd, path) pair names."""
        path = quoted(path_argument)[0].decode("utf-8", "replace") if path_argument else ""
        if path.startswith("/"):
            return os.path.normpath(path)
        _, base = annotation(directory_argument) if directory_argument else (None, None)
        if base is None:
            raise Unmodelled("a relative path whose directory strace did not print")
        return os.path.normpath(os.path.join(base, path))

    def object_of_descriptor(self, process, argument):
        """(object, path) of a descriptor argument, or (None, path) when it is not under HOME."""
        number, path = annotation(argument)
        key = (process, number)
        if key in self.descriptors:
            return self.descriptors[key], path
        if path is not None and path.endswith(" (deleted)"):
            path = path[: -len(" (deleted)")]
        if not self.under_home(path):
            return None, path
        if path in self.names:
            return self.names[path], path
        raise Unmodelled(f"a descriptor under HOME whose file is not known: {argument}")

    # Calls

    def resolve(self, call):
        """The operations of one call: a list of (object or None, operation id), or marks."""
        try:
            return self._resolve(call)
        except Unmodelled as problem:
            self.problems.append(f"{call.name}({call.arguments[:300]}) = {call.result[:80]}: {problem}")
            return []

    def _resolve(self, call):
        name, process = call.name, call.process
        arguments = split_arguments(call.arguments)
        failed = call.result.startswith("-1")
        if name in ("open", "openat", "openat2", "creat"):
            return [] if failed else self.open(call, arguments)
        if name == "close":
            if not failed:
                number, _ = annotation(arguments[0])
                self.descriptors.pop((process, number), None)
            return []
        if name in ("dup", "dup2", "dup3") or (name == "fcntl" and re.match(r"F_DUPFD", arguments[1])):
            if not failed:
                old, _ = annotation(arguments[0])
                new, _ = annotation(call.result)
                if (process, old) in self.descriptors:
                    self.descriptors[(process, new)] = self.descriptors[(process, old)]
                    self.positions[(process, new)] = self.positions.get((process, old), 0)
            return []
        if name == "fcntl" and re.match(r"F_(GET|SET)(FD|FL|LK|OWN|SIG|LEASE|PIPE_SZ)|F_OFD_|F_ADD_SEALS|F_GET_SEALS",
                                        arguments[1]):
            return []   # descriptor flags, locks; F_SETFL's O_APPEND is not used by the library's writers
        if name in ("lseek", "read", "readv"):
            if not failed:
                number, _ = annotation(arguments[0])
                if (process, number) in self.descriptors:
                    moved = int(call.result.split()[0])
                    key = (process, number)
                    self.positions[key] = moved if name == "lseek" else self.positions.get(key, 0) + moved
            return []
        if name == "mmap":
            if not failed and "MAP_SHARED" in call.arguments and "PROT_WRITE" in call.arguments:
                target, path = self.object_of_descriptor(process, arguments[4])
                if target is not None:
                    self.shared_mappings.append(path)
                    raise Unmodelled("a shared writable mapping of a file under HOME (writes through memory "
                                     "cannot be traced)")
            return []
        if name == "msync":
            if self.shared_mappings:
                raise Unmodelled("msync of a shared mapping of a file under HOME")
            return []
        if name == "io_uring_setup":
            raise Unmodelled("io_uring (its writes cannot be traced)")
        if failed:
            return []
        if name in ("write", "pwrite64", "writev", "pwritev", "pwritev2"):
            return self.write(call, arguments)
        if name in ("copy_file_range", "sendfile", "splice"):
            target_argument = arguments[2] if name == "copy_file_range" else (
                arguments[0] if name == "sendfile" else arguments[2])
            target, _ = self.object_of_descriptor(process, target_argument)
            if target is not None:
                raise Unmodelled("copies between descriptors are not modelled (their bytes are not printed)")
            return []
        if name == "fallocate":
            target, _ = self.object_of_descriptor(process, arguments[0])
            if target is None:
                return []
            mode = arguments[1]
            offset, length = int(arguments[2]), int(arguments[3])
            if mode == "FALLOC_FL_KEEP_SIZE":
                return []
            if mode != "0":
                raise Unmodelled(f"fallocate mode {mode}")
            self.sizes[target] = max(self.sizes[target], offset + length)
            return [(target, self.operation(("extend", offset + length)))]
        if name in ("ftruncate", "truncate"):
            if name == "ftruncate":
                target, _ = self.object_of_descriptor(process, arguments[0])
            else:
                path = self.absolute(None, arguments[0], process)
                target = self.names.get(path) if self.under_home(path) else None
            if target is None:
                return []
            self.sizes[target] = int(arguments[1])
            return [(target, self.operation(("truncate", int(arguments[1]))))]
        if name in ("fsync", "fdatasync"):
            target, _ = self.object_of_descriptor(process, arguments[0])
            return [] if target is None else [(target, self.operation(("sync",)))]
        if name in ("sync", "syncfs"):
            return [(None, self.operation(("sync-all",)))]
        if name in ("sync_file_range", "msync"):
            return []   # sync_file_range flushes neither metadata nor the disk's cache: no promise
        if name in ("rename", "renameat", "renameat2"):
            return self.rename(call, arguments)
        if name in ("link", "linkat"):
            return self.link(call, arguments)
        if name in ("symlink", "symlinkat"):
            path = (self.absolute(None, arguments[1], process) if name == "symlink"
                    else self.absolute(arguments[1], arguments[2], process))
            if self.under_home(path):
                raise Unmodelled("a symbolic link under HOME")
            return []
        if name in ("unlink", "unlinkat", "rmdir"):
            path = (self.absolute(None, arguments[0], process) if name != "unlinkat"
                    else self.absolute(arguments[0], arguments[1], process))
            if not self.under_home(path):
                return []
            removed = self.names.pop(path, None)
            for other in [other for other in self.names if other.startswith(path + "/")]:
                self.names.pop(other)
            parent = self.names[os.path.dirname(path)]
            return [(parent, self.operation(("unlink", os.path.basename(path))))] if removed is not None else []
        if name in ("mkdir", "mkdirat"):
            path = (self.absolute(None, arguments[0], process) if name == "mkdir"
                    else self.absolute(arguments[0], arguments[1], process))
            if not self.under_home(path):
                return []
            number = self.new_object("dir")
            self.names[path] = number
            parent = self.names[os.path.dirname(path)]
            return [(parent, self.operation(("link", os.path.basename(path), number)))]
        if name in CALLS_THAT_DO_NOT_WRITE or not self.mentions_home(call.arguments):
            return []
        raise Unmodelled("a call on a file under HOME that the model does not describe")

    def mentions_home(self, text):
        paths = [decode(found).decode("utf-8", "replace") for found in re.findall(r'"((?:\\x[0-9a-f]{2})*)"', text)]
        paths += [annotation(found)[1] for found in re.findall(r"(?:-?\d+|AT_FDCWD)<[^>]*>", text)]
        return any(self.under_home((path or "").replace(" (deleted)", "")) for path in paths)

    def open(self, call, arguments):
        process = call.process
        if call.name == "creat":
            path, flags = self.absolute(None, arguments[0], process), "O_CREAT|O_WRONLY|O_TRUNC"
        elif call.name == "open":
            path, flags = self.absolute(None, arguments[0], process), arguments[1]
        elif call.name == "openat":
            path, flags = self.absolute(arguments[0], arguments[1], process), arguments[2]
        else:
            path, flags = self.absolute(arguments[0], arguments[1], process), arguments[2]
        number, _ = annotation(call.result)
        key = (process, number)
        self.descriptors.pop(key, None)
        if not self.under_home(path):
            return []
        result = []
        if "O_TMPFILE" in flags:
            target = self.new_object("file")   # a file without a name until linkat gives it one
        elif path in self.names:
            target = self.names[path]
            if self.kinds[target] == "dir":
                self.descriptors[key] = target
                return []
        elif "O_CREAT" in flags:
            target = self.new_object("file")
            self.names[path] = target
            parent = self.names[os.path.dirname(path)]
            result.append((parent, self.operation(("link", os.path.basename(path), target))))
        else:
            raise Unmodelled("a file under HOME opened that the model does not know")
        self.descriptors[key] = target
        self.positions[key] = 0
        if "O_APPEND" in flags:
            self.appending.add(key)
        else:
            self.appending.discard(key)
        if "O_TRUNC" in flags or call.name == "creat":
            self.sizes[target] = 0
            result.append((target, self.operation(("truncate", 0))))
        return result

    def write(self, call, arguments):
        process = call.process
        target, _ = self.object_of_descriptor(process, arguments[0])
        number, _ = annotation(arguments[0])
        if target is None:
            if call.name == "write":
                data = quoted(arguments[1])
                if data and data[0].startswith(b"@@"):
                    return [(None, ("mark", line)) for line in data[0].decode().splitlines()]
            return []
        if self.kinds[target] != "file":
            raise Unmodelled("a write to a directory")
        written = int(call.result.split()[0])
        if call.name in ("write", "pwrite64"):
            data = quoted(arguments[1])[0]
        else:
            data = b"".join(quoted(arguments[1]))
        data = data[:written]
        key = (process, number)
        # pwrite64(fd, buffer, count, offset), pwritev(fd, vectors, count, offset),
        # pwritev2(fd, vectors, count, offset, flags) with offset -1: at the file position.
        if call.name in ("pwrite64", "pwritev") or (call.name == "pwritev2" and arguments[3] != "-1"):
            offset = int(arguments[3])
        else:
            offset = self.sizes[target] if key in self.appending else self.positions.get(key, 0)
            self.positions[key] = offset + written
        self.sizes[target] = max(self.sizes[target], offset + written)
        return [(target, self.operation(("write", offset, data)))]

    def rename(self, call, arguments):
        process = call.process
        if call.name == "rename":
            source, target = self.absolute(None, arguments[0], process), self.absolute(None, arguments[1], process)
        else:
            source = self.absolute(arguments[0], arguments[1], process)
            target = self.absolute(arguments[2], arguments[3], process)
            if call.name == "renameat2" and "RENAME_EXCHANGE" in call.arguments:
                if self.under_home(source) or self.under_home(target):
                    raise Unmodelled("renameat2 with RENAME_EXCHANGE")
        if not self.under_home(source) and not self.under_home(target):
            return []
        if os.path.dirname(source) != os.path.dirname(target):
            raise Unmodelled("a rename across directories")
        moved = self.names.pop(source)
        for other in [other for other in self.names if other.startswith(target + "/")]:
            self.names.pop(other)
        for other in [other for other in self.names if other.startswith(source + "/")]:
            self.names[target + other[len(source):]] = self.names.pop(other)
        self.names[target] = moved
        parent = self.names[os.path.dirname(target)]
        self.scratch_names.add((parent, os.path.basename(source)))
        return [(parent, self.operation(("rename", os.path.basename(source), os.path.basename(target))))]

    def link(self, call, arguments):
        process = call.process
        if call.name == "link":
            source_path, target = self.absolute(None, arguments[0], process), self.absolute(None, arguments[1], process)
            flags = ""
            source_argument = None
        else:
            source_argument, flags = arguments[0], arguments[4] if len(arguments) > 4 else ""
            source_path = self.absolute(arguments[0], arguments[1], process)
            target = self.absolute(arguments[2], arguments[3], process)
        if not self.under_home(target):
            return []
        if "AT_EMPTY_PATH" in flags:
            linked, _ = self.object_of_descriptor(process, source_argument)
        elif re.match(r"^/proc/(self|\d+)/fd/\d+$", source_path):
            number = source_path.rsplit("/", 1)[1]
            linked = self.descriptors.get((process, number))
        else:
            linked = self.names.get(source_path)
        if linked is None:
            raise Unmodelled("a link to a file the model does not know")
        self.names[target] = linked
        parent = self.names[os.path.dirname(target)]
        return [(parent, self.operation(("link", os.path.basename(target), linked)))]
