# bash completion for capsa (installed as share/bash-completion/completions/capsa).
# The commands and each command's options are read from `capsa --help` and
# `capsa COMMAND --help`, once per shell, so they follow the program installed;
# options whose value is a FILE or a DIR, and the script operand, complete names.

# Prints the option lines of `capsa [COMMAND] --help` as "--option PLACEHOLDER"
# (PLACEHOLDER empty for a flag): an option's value is the word after it when
# that word is upper case (FILE, MIB, HOST:GUEST[:ro|rw], [HOST:]PORT).
_capsa_options()
{
    "$1" ${2:+"$2"} --help 2>/dev/null | awk '
        $1 ~ /^-[a-zA-Z],$/ { $1 = "" ; $0 = $0 }
        $1 ~ /^--?[a-zA-Z][a-zA-Z0-9-]*$/ {
            arg = ($2 ~ /^[A-Z[]/) ? $2 : ""
            print $1, arg
        }'
}

_capsa()
{
    local cur prev cmd i prog=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()

    if [ -z "${_capsa_commands+x}" ]; then
        _capsa_commands=$("$prog" --help 2>/dev/null |
            sed -n 's/^\(usage:\)\{0,1\} *capsa \([a-z][a-z]*\).*/\2/p' | sort -u | tr '\n' ' ')
    fi
    # The command is the first word that is one of them.
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case " $_capsa_commands " in *" ${COMP_WORDS[i]} "*) cmd=${COMP_WORDS[i]}; break ;; esac
    done
    if [ -z "$cmd" ]; then
        mapfile -t COMPREPLY < <(compgen -W "$_capsa_commands --help --version" -- "$cur")
        return
    fi

    local var=_capsa_opts_$cmd
    if [ -z "${!var+x}" ]; then
        printf -v "$var" '%s' "$(_capsa_options "$prog" "$cmd")"
    fi
    local opts=${!var} arg
    # The value of the option before the cursor.
    arg=$(printf '%s\n' "$opts" | awk -v o="$prev" '$1 == o { print $2; exit }')
    case $arg in
    '') ;;
    *DIR*) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); compopt -o filenames 2>/dev/null; return ;;
    FILE* | HOST*) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); compopt -o filenames 2>/dev/null; return ;;
    *) return ;;
    esac
    case $prev in -e | -c) return ;; esac

    if [[ $cur == -* ]]; then
        local extra=
        case $cmd in run) extra="-e" ;; shell) extra="-c" ;; esac
        mapfile -t COMPREPLY < <(compgen -W "$(printf '%s\n' "$opts" | awk '{ print $1 }') $extra" -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        compopt -o filenames 2>/dev/null
    fi
}
complete -F _capsa capsa
