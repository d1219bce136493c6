"""Recording: the host processes of a scenario under `strace -f`, and the calls they made."""

import os
import re
import subprocess
import sys

from . import SUITE
from .scenarios import OTHER_KEY_COUNT


def host_environment(home):
    environment = dict(os.environ, HOME=home)
    environment.pop("XDG_CONFIG_HOME", None)
    return environment


def set_up(host, home, scenario):
    """Runs the scenario's setup, untraced, with no fault injected; returns the marks it printed."""
    environment = host_environment(home)
    marks = []
    setup = ([f"seed:{OTHER_KEY_COUNT}"] if scenario.others else []) + (scenario.setup or [])
    if setup:
        plain = dict(environment)
        plain.pop("APPSETTINGS_INJECTED_FAULT", None)
        finished = subprocess.run([host, "steps", SUITE] + setup, env=plain, capture_output=True,
                                  text=True)
        if finished.returncode != 0:
            sys.exit(f"power-loss: the setup process failed: {finished.stderr.strip()}")
        marks = [line for line in finished.stdout.splitlines() if line.startswith("@@")]
        if scenario.prepare:
            scenario.prepare(home)
    return marks


def run_scenario(host, strace, home, scenario):
    """Runs the scenario's processes under strace; returns the trace files in the order written."""
    environment = host_environment(home)
    traces = []

    def start(steps):
        trace = os.path.join(os.path.dirname(home), f"trace.{len(traces)}")
        traces.append(trace)
        command = [strace, "-f", "-ttt", "-y", "-xx", "-s", "100000000", "-o", trace, host, "steps", SUITE] + steps
        return subprocess.Popen(command, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def finish(process):
        _, err = process.communicate()
        if process.returncode != 0:
            sys.exit(f"power-loss: a host process failed: {err.strip()}")

    for process in scenario.processes:
        if isinstance(process, list):
            finish(start(process))
            continue
        _, steps, others = process
        waiting = start(steps)
        while True:
            line = waiting.stdout.readline()
            if not line:
                sys.exit("power-loss: the waiting host ended before its wait step")
            if line.strip() == "@@waiting":
                break
        for other in others:
            finish(start(other))
        waiting.stdin.write("go\n")
        waiting.stdin.flush()
        finish(waiting)
    return traces


LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")
CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(.*)$", re.S)


class Call:
    __slots__ = ("process", "thread", "main", "time", "name", "arguments", "result")

    def __init__(self, process, thread, main, time, name, arguments, result):
        self.process, self.thread, self.main, self.time = process, thread, main, time
        self.name, self.arguments, self.result = name, arguments, result


def read_calls(traces):
    """Every finished call of every trace, in the order of strace's timestamps (a thread's calls
    stay in program order; processes ran one at a time, but for the waiting one)."""
    calls = []
    for process, trace in enumerate(traces):
        pending = {}
        main = None
        with open(trace, encoding="latin-1") as file:
            for raw in file:
                match = LINE.match(raw.rstrip("\n"))
                if not match:
                    continue
                thread, time, text = int(match.group(1)), float(match.group(2)), match.group(3)
                if main is None:
                    main = thread   # the first line is the process's execve
                if text.endswith("<unfinished ...>"):
                    pending[thread] = (time, text[: -len("<unfinished ...>")].rstrip())
                    continue
                resumed = re.match(r"^<\.\.\. \w+ resumed>(.*)$", text)
                if resumed:
                    time, start = pending.pop(thread, (time, ""))
                    text = start + resumed.group(1)
                call = CALL.match(text)
                if call:
                    calls.append((time, process, len(calls), Call(process, thread, thread == main, time,
                                                                  call.group(1), call.group(2), call.group(3))))
    calls.sort(key=lambda entry: entry[:3])
    return [call for _, _, _, call in calls]


def decode(text):
    """The bytes of a string strace printed with -xx."""
    return bytes.fromhex(text.replace("\\x", ""))


def split_arguments(text):
    """Top-level arguments of an argument list (strings are all \\x escapes with -xx)."""
    parts, depth, current = [], 0, []
    for character in text:
        if character in "([{<":
            depth += 1
        elif character in ")]}>":
            depth -= 1
        if character == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(character)
    if current:
        parts.append("".join(current).strip())
    return parts


def quoted(text):
    """The decoded bytes of every quoted string in `text`, in order."""
    return [decode(found) for found in re.findall(r'"((?:\\x[0-9a-f]{2})*)"', text)]


def annotation(text):
    """`fd<path>` as strace -y prints it: (number or None, path or None)."""
    found = re.match(r"^(-?\d+|AT_FDCWD)<(.*)>$", text.strip(), re.S)
    if not found:
        number = re.match(r"^(-?\d+|AT_FDCWD)$", text.strip())
        return (number.group(1) if number else None), None
    path = found.group(2)
    if path.startswith("\\x"):
        hexpart = re.match(r"^((?:\\x[0-9a-f]{2})+)(.*)$", path, re.S)
        path = decode(hexpart.group(1)).decode("utf-8", "replace") + hexpart.group(2)
    return found.group(1), path
