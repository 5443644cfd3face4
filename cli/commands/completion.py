"""``kschedx completion SHELL``: the shell completion script, as ``kubectl completion`` prints it.

``--install-completion`` / ``--show-completion`` (Typer's) guess the shell from the parent
process; this command takes it by name, for dotfiles and images built without a terminal.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer


class Shell(StrEnum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"
    powershell = "powershell"


def completion(
    shell: Annotated[Shell, typer.Argument(metavar="SHELL", help="bash, zsh, fish or powershell.",
                                           case_sensitive=False)],
) -> None:
    """Print the completion script for SHELL.

    bash: source <(kschedx completion bash)    zsh: kschedx completion zsh > "${fpath[1]}/_kschedx"
    fish: kschedx completion fish > ~/.config/fish/completions/kschedx.fish
    """
    from typer._completion_shared import get_completion_script

    # The script calls kschedx back with this variable set; Typer answers with the candidates.
    typer.echo(get_completion_script(prog_name="kschedx", complete_var="_KSCHEDX_COMPLETE", shell=shell.value))
