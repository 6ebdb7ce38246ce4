# termic shell integration for bash: OSC 133 prompt and command marks.
# A termic-owned file, rewritten by termic; edit your own ~/.bashrc instead.
# bash reads this file in place of ~/.bashrc (termic starts `bash --rcfile`),
# so your own rc is read first, exactly as bash would have.
if [ -r "$HOME/.bashrc" ]; then
    . "$HOME/.bashrc"
fi
if [ -z "${__termic_integrated-}" ]; then
    __termic_integrated=1
    __termic_first=1
    __termic_precmd() {
        local s=$?
        # D (the command ended, with its status) except before the first prompt.
        if [ -z "$__termic_first" ]; then
            printf '\033]133;D;%s\007' "$s"
        fi
        __termic_first=
        printf '\033]133;A\007'
        return "$s"
    }
    # First, so it sees the command's status; the user's own entries follow.
    PROMPT_COMMAND=$'__termic_precmd\n'"${PROMPT_COMMAND-}"
    # C: bash prints PS0 after reading a command line, before running it.
    PS0="${PS0-}"'\e]133;C\a'
    # B: the end of the prompt, where the command is typed.
    PS1="${PS1-}"'\[\e]133;B\a\]'
fi
