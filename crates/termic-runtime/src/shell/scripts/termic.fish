# termic shell integration for fish: OSC 133 prompt and command marks.
# A termic-owned file, rewritten by termic; edit your own config.fish instead.
# termic starts fish with its own directory first in XDG_DATA_DIRS, so fish
# reads this as a vendor conf.d file; your config.fish still loads after it.
if set -q TERMIC_XDG_DATA_DIRS
    set -gx XDG_DATA_DIRS "$TERMIC_XDG_DATA_DIRS"
    set -e TERMIC_XDG_DATA_DIRS
else
    set -e XDG_DATA_DIRS
end
status is-interactive; or exit 0
set -q __termic_integrated; and exit 0
set -g __termic_integrated 1
function __termic_preexec --on-event fish_preexec
    printf '\e]133;C\a'
end
function __termic_postexec --on-event fish_postexec
    printf '\e]133;D;%s\a' $status
end
function __termic_prompt --on-event fish_prompt
    printf '\e]133;A\a'
end
