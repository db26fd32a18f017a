#!/bin/sh
# tst_dap2_ncdump.sh: our ncdump against the reference ncdump (4.9.0) on
# every recorded DAP2 dataset, read through file:///DIR/NAME URLs (NAME.dds,
# NAME.das, NAME.dods), with -h, -c, no option, -s and -v VAR (the first,
# a middle and the last variable).  Standard output and the exit status
# must be identical, except for the differences listed below (with their
# reason; docs/differences.md).
#
#   tst_dap2_ncdump.sh OUR_NCDUMP DATADIR WORKDIR [NAME...]
#
# Exits 77 when the reference ncdump is absent.
OURS=$1
DATA=$2
WORK=$3
shift 3
REF=${NC_REF_NCDUMP:-/usr/bin/ncdump}
[ -x "$REF" ] || { echo "no reference ncdump at $REF"; exit 77; }
[ -d "$DATA" ] || { echo "no DAP2 test data at $DATA"; exit 77; }
mkdir -p "$WORK" || exit 1

# Known differences: "NAME OPTION reason".  None: every dataset and option
# prints the same text as the reference.
EXPECTED=""

if [ $# -gt 0 ]; then
    NAMES="$*"
else
    NAMES=$(ls "$DATA" | sed -n 's/\.dds$//p')
fi

same=0
differ=0
failed=""
compare() {  # name label args...
    n=$1
    label=$2
    shift 2
    "$REF" "$@" "file://$DATA/$n" > "$WORK/ref.out" 2> /dev/null
    rrc=$?
    "$OURS" "$@" "file://$DATA/$n" > "$WORK/our.out" 2> "$WORK/our.err"
    orc=$?
    if [ $rrc -eq $orc ] && cmp -s "$WORK/ref.out" "$WORK/our.out"; then
        same=$((same + 1))
        return
    fi
    case " $EXPECTED " in
    *" $n:$label "*) same=$((same + 1)); return ;;
    esac
    differ=$((differ + 1))
    failed="$failed $n:$label"
    echo "DIFFERENT: $n ncdump $* (status ref $rrc, ours $orc)"
    diff "$WORK/ref.out" "$WORK/our.out" | head -10
    head -3 "$WORK/our.err"
}

for n in $NAMES; do
    for opt in -h -c none -s; do
        if [ "$opt" = none ]; then
            compare "$n" plain
        else
            compare "$n" "$opt" "$opt"
        fi
    done
    # variables as the reference names them (names without CDL escapes)
    "$REF" -h "file://$DATA/$n" 2> /dev/null \
        | sed -n '/^variables:/,/^$/p' \
        | sed -n 's/^\t[a-z]* \([^ (\\]*\)[ (].*/\1/p' > "$WORK/vars"
    count=$(wc -l < "$WORK/vars")
    [ "$count" -gt 0 ] || continue
    for k in $(printf '%s\n' 1 $(((count + 1) / 2)) "$count" | sort -un); do
        v=$(sed -n "${k}p" "$WORK/vars")
        compare "$n" "-v$v" -v "$v"
    done
done
# the dataset name of a URL leaves out its fragment (client parameters)
for n in $NAMES; do
    case $n in synth3|test.01) compare "$n#nofillmismatch" fragment -h ;; esac
done
echo "identical: $same, different: $differ"
[ $differ -eq 0 ] || { echo "differences:$failed"; exit 1; }
exit 0
