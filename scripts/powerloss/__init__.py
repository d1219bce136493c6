"""The power-loss explorer's modules (scripts/power-loss-states.py is the entry point; its docstring
describes the model and the command line).

- recording: runs a scenario's host processes under strace and reads the calls they made;
- resolver: turns each writing call under HOME into operations on files and directories;
- states: the program of a recording and every state a power loss during it can leave;
- checking: loads a state in a fresh host process and classifies what it loaded;
- scenarios: the scenarios and the app's own keys beside the sets;
- modelcheck: the resolver on hand-written calls (--check-model);
- cli: runs the scenarios and prints the report.
"""

SUITE = "PowerLoss"
KEY_PREFIX = "AppSettings."
