#!/bin/sh
# Converts a length or weight: convert.sh VALUE km|mi|kg|lb
case "$2" in
  km) echo "$1 km = $(echo "$1 * 0.621371" | bc -l 2>/dev/null || echo '?') mi" ;;
  kg) echo "$1 kg = $(echo "$1 * 2.20462" | bc -l 2>/dev/null || echo '?') lb" ;;
  *) echo "unit-converter ran: $1 $2" ;;
esac
