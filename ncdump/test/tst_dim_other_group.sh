#!/bin/sh
# ncdump of variables whose dimensions live in groups that are not
# ancestors of the variable's group (a sibling's, a sibling's child), or
# whose bare name a nearer dimension hides.
# Usage: tst_dim_other_group.sh OUR_NCDUMP OUR_NCGEN WORKDIR
# Our ncgen writes the files.  The declarations must name each dimension
# by the full name of the group that defines it (upstream 4.10.1 searches
# the whole group tree); the printed CDL must make, through ncgen, a file
# that dumps the same; and where the 4.9.0 reference ncdump is right (a
# dimension in a sibling group with no other dimension of its name) our
# output must equal the reference's byte for byte.
set -u
OURDUMP=$1; OURGEN=$2; WORK=$3
REFDUMP=${REF_NCDUMP:-/usr/bin/ncdump}
mkdir -p "$WORK"
cd "$WORK" || exit 1
pass=0; fail=0
ok() { pass=$((pass+1)); }
failed() { fail=$((fail+1)); echo "FAIL: $*"; }

# A dimension in a sibling group, no other dimension called d.
cat > sibling.cdl <<'CDL'
netcdf sibling {

group: a {
  dimensions:
  	d = 3 ;
  variables:
  	int w(d) ;
  data:

   w = 4, 5, 6 ;
  } // group a

group: b {
  variables:
  	int v(/a/d) ;
  data:

   v = 1, 2, 3 ;
  } // group b
}
CDL
# Dimensions of a sibling and of a sibling's child, while the root and
# the variable's own group each have another dimension called d.
cat > hidden.cdl <<'CDL'
netcdf hidden {
dimensions:
	d = 2 ;

group: a {
  dimensions:
  	d = 3 ;

  group: c {
    dimensions:
    	e = 2 ;
    } // group c
  } // group a

group: b {
  dimensions:
  	d = 4 ;
  variables:
  	int v(/a/d) ;
  	int u(/a/c/e, d) ;
  	int t(/d) ;
  data:

   v = 1, 2, 3 ;

   u =
  10, 11, 12, 13,
  14, 15, 16, 17 ;

   t = 7, 8 ;
  } // group b
}
CDL
# A root dimension used from a grandchild whose own d hides it (upstream
# prints the group where the bare name first finds it, /b/d, a dimension
# that does not exist; ours names the group that defines it).
cat > nested.cdl <<'CDL'
netcdf nested {
dimensions:
	d = 2 ;

group: b {
  dimensions:
  	e = 5 ;
  variables:
  	int w(d) ;
  data:

   w = 1, 2 ;

  group: c {
    dimensions:
    	d = 4 ;
    variables:
    	int v(/d) ;
    	int x(d) ;
    	int y(e) ;
    data:

     v = 3, 4 ;

     x = 5, 6, 7, 8 ;

     y = 1, 2, 3, 4, 5 ;
    } // group c
  } // group b
}
CDL

# The -h form of a CDL text: each data section left out.
header_only() {
    awk '/^ *data:$/ {skip=1; next}
         skip && /^ *group:/ {skip=0; print ""}
         skip && /^ *(} \/\/ group|}$)/ {skip=0}
         !skip {print}' "$1"
}

for b in sibling hidden nested; do
    rm -f "$b.nc" "$b.2.nc"
    if ! "$OURGEN" -k nc4 -o "$b.nc" "$b.cdl"; then
        failed "ncgen $b.cdl"; continue
    fi
    # The dump is the CDL it was made from.
    "$OURDUMP" "$b.nc" > "$b.out" 2> "$b.err"; st=$?
    if [ $st -eq 0 ] && cmp -s "$b.cdl" "$b.out"; then ok; else
        failed "ncdump $b.nc (exit $st)"; diff "$b.cdl" "$b.out" | head -8; head -3 "$b.err"
    fi
    # Header only too.
    header_only "$b.cdl" > "$b.h.cdl"
    "$OURDUMP" -h "$b.nc" > "$b.h.out" 2>&1
    if cmp -s "$b.h.cdl" "$b.h.out"; then ok; else
        failed "ncdump -h $b.nc"; diff "$b.h.cdl" "$b.h.out" | head -8
    fi
    # Round trip: the printed CDL makes the same file again.
    if "$OURGEN" -k nc4 -o "$b.2.nc" "$b.out" && "$OURDUMP" -n "$b" "$b.2.nc" > "$b.2.out" &&
       cmp -s "$b.out" "$b.2.out"; then ok; else
        failed "ncgen of the dump of $b.nc does not dump the same"
    fi
done

# Where the reference is right, byte for byte with it.
if [ -x "$REFDUMP" ]; then
    "$REFDUMP" sibling.nc > sibling.ref 2>&1
    if cmp -s sibling.ref sibling.out; then ok; else
        failed "reference ncdump of sibling.nc differs"; diff sibling.ref sibling.out | head -8
    fi
else
    echo "reference ncdump missing: comparison with it skipped"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
