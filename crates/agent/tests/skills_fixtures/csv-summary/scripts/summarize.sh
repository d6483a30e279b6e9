#!/bin/sh
# Prints the column names and the number of data rows of a CSV file.
file="$1"
if [ -z "$file" ]; then echo "usage: summarize.sh FILE" >&2; exit 2; fi
echo "columns: $(head -n 1 "$file")"
echo "rows: $(($(wc -l < "$file") - 1))"
