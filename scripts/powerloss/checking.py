"""Checking a state: materialized in a scratch HOME, loaded in a fresh host process, classified."""

import os
import plistlib
import re
import shutil
import subprocess

from . import KEY_PREFIX, SUITE
from .recording import host_environment


def fields(line):
    found = re.match(r"counter=(\S*) label=(\S*) values=(\S*)", line)
    return found.groups() if found else None


def classify(loaded, accepted, copy_only=False):
    """ok; unreadable (the load reported an error: the domain's bytes are kept, the defaults used);
    mixed (each field as one of the accepted sets has it, but not all as one); lost. With the
    domain's keys removed (`copy_only`) the recovery copy alone answers: an error there is a loss."""
    if loaded in accepted:
        return "ok"
    if loaded.endswith(LOAD_ERROR) and not copy_only:
        return "unreadable"
    if len(accepted) >= 2:
        mine, candidates = fields(loaded), [fields(line) for line in accepted]
        if mine and all(any(value == candidate[index] for candidate in candidates)
                        for index, value in enumerate(mine)):
            return "mixed"
    return "lost"


LOAD_ERROR = " (load error)"


def without_keys(data, sets):
    """The domain file's bytes without the sets' keys, or None when it has none of them (or is not
    a property list: corelibs then loads an empty domain, which is what it is without them)."""
    try:
        domain = plistlib.loads(data)
    except Exception:
        return None
    if not isinstance(domain, dict):
        return None
    keys = [KEY_PREFIX + name for name in sets if KEY_PREFIX + name in domain]
    if not keys:
        return None
    for key in keys:
        del domain[key]
    return plistlib.dumps(domain, fmt=plistlib.FMT_XML)


def materialize(directory, files):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for path, data in files:
        target = os.path.join(directory, path)
        if data is None:
            os.makedirs(target, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as file:
            file.write(data)


def load(host, directory, files, sets):
    """Materializes a state in a scratch HOME and loads every set in a fresh process."""
    materialize(directory, files)
    environment = host_environment(directory)
    finished = subprocess.run([host, "fields-of", SUITE] + sets, env=environment, capture_output=True, text=True)
    loaded = {}
    for line in finished.stdout.splitlines():
        name, rest = line.split(" ", 1)
        fields_line, error = rest.rsplit(" error=", 1)
        loaded[name] = fields_line + (LOAD_ERROR if error == "yes" else "")
    return {name: loaded.get(name, f"no result (exit {finished.returncode}: {finished.stderr.strip()[:200]})")
            for name in sets}


def damaged_domains(host, work, contents):
    """The domain files' bytes a property-list reader does not read as a dictionary."""
    directory = os.path.join(work, "parse")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    paths = {}
    for index, data in enumerate(sorted(content for content in contents if content is not None)):
        path = os.path.join(directory, str(index))
        with open(path, "wb") as file:
            file.write(data)
        paths[path] = data
    damaged = set()
    for start in range(0, len(paths), 200):
        chunk = list(paths)[start:start + 200]
        finished = subprocess.run([host, "parses", "-", "-"] + chunk, capture_output=True, text=True, check=True)
        for line in finished.stdout.splitlines():
            path, verdict = line.rsplit(" ", 1)
            if verdict == "no":
                damaged.add(paths[path])
    return damaged


def is_scratch(explorer, identifier, path):
    return any(candidate == path and content <= -2 for candidate, content in explorer.states[identifier])
