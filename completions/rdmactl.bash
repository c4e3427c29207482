# bash completion for rdmactl(8)                            -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Objects, commands, arguments and device names come from rdmactl itself
# ("rdmactl __complete WORD... CURRENT" reads its command table and asks the
# daemon for device names), so completion always matches the installed
# binary.  Only the global options, which come before the object, are known
# here.  Without the bash-completion package (bash --norc) it still works:
# the few of its helpers used here have stand-ins below.

# cur, prev, words, cword and split of the calling function, as
# _init_completion -s sets them: the line to the cursor split on blanks only
# (bash's own COMP_WORDS also split at '=' and ':').
_rdmactl_init()
{
    if declare -F _init_completion >/dev/null; then
        _init_completion -s
        return
    fi
    local line=${COMP_LINE:0:COMP_POINT}
    read -ra words <<<"$line"
    [[ -z $line || $line == *[[:space:]] ]] && words+=("")
    cword=$((${#words[@]} - 1))
    cur=${words[cword]}
    prev=${words[cword - 1]-}
    split=false
    if [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
        split=true
    fi
}

# COMPREPLY as bash takes it: each reply without the part of cur before the
# word bash is completing (after its last '=' or ':').
_rdmactl_trim()
{
    declare -F _init_completion >/dev/null && return
    local bash_cur=${COMP_WORDS[COMP_CWORD]-} i
    [[ $bash_cur == "=" || $bash_cur == ":" ]] && bash_cur=
    local before=${cur%"$bash_cur"}
    [[ -n $before && $before != "$cur" ]] || return
    for i in "${!COMPREPLY[@]}"; do
        COMPREPLY[i]=${COMPREPLY[i]#"$before"}
    done
}

_rdmactl_filedir()
{
    if declare -F _filedir >/dev/null; then
        _filedir
    else
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

_rdmactl()
{
    local cur prev words cword split
    _rdmactl_init || return

    local -a opts=(-j --json -p --pretty -d --details -q --quiet -s --socket --no-legend --no-pager
        -H --host -i --interactive -V --version -h --help)
    local -a args=()
    local i w object=

    # The words before the current one, with the socket option brought to
    # the "-s PATH" form that rdmactl __complete understands.
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if [[ -z $object ]]; then
            case $w in
                --s*=* | --so*=*)
                    if [[ --socket == "${w%%=*}"* ]]; then
                        args+=(-s "${w#*=}")
                        continue
                    fi
                    ;;
                --s | --so*)
                    if [[ --socket == "$w"* ]]; then
                        args+=(-s "${words[i + 1]-}")
                        ((i++))
                        continue
                    fi
                    ;;
                -H | --host)
                    # The host's daemon is asked for its objects (through ssh).
                    args+=(-H "${words[i + 1]-}")
                    ((i++))
                    continue
                    ;;
                -s)
                    args+=(-s "${words[i + 1]-}")
                    ((i++))
                    continue
                    ;;
                -[jpdqiVh]*s)
                    # A bundle of short options ending in -s: its value follows.
                    args+=("${w%s}" -s "${words[i + 1]-}")
                    ((i++))
                    continue
                    ;;
                -[jpdqiVh]*s?*)
                    args+=("${w%%s*}" -s "${w#*s}")
                    continue
                    ;;
                -s?*)
                    args+=(-s "${w#-s}")
                    continue
                    ;;
                -*) ;;
                *) object=$w ;;
            esac
        fi
        args+=("$w")
    done

    # The value of the socket option: a path; of -H, a host ssh knows.
    if [[ -z $object ]]; then
        if [[ $prev == -H || $prev == --host ]]; then
            _known_hosts_real -- "$cur"
            return
        fi
        if [[ $split == true && --socket == "$prev"* && $prev == --s* ]] ||
            [[ $prev == -s || $prev == -[jpdqiVh]*s ]]; then
            _rdmactl_filedir
            return
        fi
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "${opts[*]}" -- "$cur"))
            return
        fi
    fi
    $split && return

    local cmd=${words[0]}
    [[ $cmd == "~/"* ]] && cmd=$HOME/${cmd#"~/"}
    type -P "$cmd" >/dev/null 2>&1 || cmd=rdmactl
    # A daemon that does not answer must not hang the shell.
    local -a run=("$cmd")
    type -P timeout >/dev/null 2>&1 && run=(timeout 3 "$cmd")

    local IFS=$'\n'
    COMPREPLY=($("${run[@]}" __complete "${args[@]}" "$cur" 2>/dev/null))
    _rdmactl_trim
    # A directory (of a FILE value) is completed further: no blank after its '/'.
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then
        compopt -o nospace 2>/dev/null
    fi
} &&
    complete -F _rdmactl rdmactl

# ex: filetype=sh
