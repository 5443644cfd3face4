"""The kschedx command line: Typer commands and Rich rendering, no scheduling logic."""
