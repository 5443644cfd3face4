"""One module per ``kschedx`` command; ``kschedx.cli.app`` registers each with one line."""
