#!/bin/bash
# The case files of tests/shell/compare.sh and tests/sqlite/compare.sh (sourced by
# both, under bash): blank lines and lines starting with # are skipped; a case of
# several lines goes between a line "<<<" and a line ">>>". A case may carry a
# mark, "  #! MARK" at the end of its line (for a case of several lines, at the
# end of its "<<<" line), which the script reading it interprets.
#
# read_cases FILE appends each case of FILE to the array case_text and its mark
# ("" for none) to case_mark.
read_cases() {
    local line block="" in_block=0 mark block_mark=""
    while IFS= read -r line || [ -n "$line" ]; do
        mark=""
        if [ $in_block = 1 ]; then
            if [ "$line" = ">>>" ]; then
                in_block=0
                line=$block
                mark=$block_mark
            else
                block="$block$line
"
                continue
            fi
        elif [ "${line%%  #! *}" = "<<<" ]; then
            in_block=1
            block=""
            block_mark=""
            case $line in '<<<  #! '*) block_mark=${line#<<<  #! } ;; esac
            continue
        else
            case $line in '' | '#'*) continue ;; esac
            case $line in *'  #! '*)
                mark=${line##*  #! }
                line=${line%  #! *} ;;
            esac
        fi
        case_text+=("$line")
        case_mark+=("$mark")
    done <"$1"
}
