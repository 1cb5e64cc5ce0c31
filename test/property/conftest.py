"""Prints what the property tests checked (programs, loops, op counts) at the end of the run."""


def pytest_terminal_summary(terminalreporter):
    import sys

    mod = sys.modules.get("propcheck")
    if mod is None:
        return
    for stats in mod.REGISTRY.values():
        if stats.c["programs"]:
            terminalreporter.write_line(stats.dump())
