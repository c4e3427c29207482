# bash completion for rdmactl(8)                            -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Objects, commands, arguments and device names come from rdmactl itself
# ("rdmactl __complete WORD... CURRENT" reads its command table and asks the
# daemon for device names), so completion always matches the installed
# binary.  Only the global options, which come before the object, are known
# here.

_rdmactl()
{
    local cur prev words cword split
    _init_completion -s || return

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
            _filedir
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
    # A directory (of a FILE value) is completed further: no blank after its '/'.
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then
        compopt -o nospace 2>/dev/null
    fi
} &&
    complete -F _rdmactl rdmactl

# ex: filetype=sh
