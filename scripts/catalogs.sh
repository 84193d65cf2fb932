#!/usr/bin/env bash
# The translation catalogs (companion/translations), with Babel's pybabel:
#   bash scripts/catalogs.sh extract   messages.pot from the code and templates (babel.cfg)
#   bash scripts/catalogs.sh update    extract, then merge the new messages into every language's .po
#   bash scripts/catalogs.sh compile   each .po to its .mo (the install step does this; the app
#                                      also compiles a .po in memory when its .mo is missing or older)
#   bash scripts/catalogs.sh init XX   start a new language XX from messages.pot
set -euo pipefail
cd "$(dirname "$0")/.."
PYBABEL=".venv/bin/pybabel"
DIR="companion/translations"
# The games' words (companion/games/words.py): t(message), tn(one, many, count),
# tc(context, message), tnc(context, one, many, count); N_ marks a message said later.
KEYWORDS=(-k t -k tn:1,2 -k tc:1c,2 -k tnc:1c,2,3 -k N_)

extract() {
  "$PYBABEL" -q extract -F babel.cfg "${KEYWORDS[@]}" --no-location --sort-output \
    --project "Forest Table" --copyright-holder "Forest Table" --msgid-bugs-address "" \
    --ignore-dirs ".* ._ node_modules mutants instance tests bench docs" -o "${POT:-$DIR/messages.pot}" .
}

case "${1:-}" in
  extract) extract ;;
  update) extract; "$PYBABEL" -q update -i "$DIR/messages.pot" -d "$DIR" --no-fuzzy-matching --ignore-obsolete ;;
  compile) "$PYBABEL" -q compile -d "$DIR" ;;
  init) "$PYBABEL" -q init -i "$DIR/messages.pot" -d "$DIR" -l "$2" ;;
  *) echo "usage: $0 extract|update|compile|init XX" >&2; exit 2 ;;
esac
