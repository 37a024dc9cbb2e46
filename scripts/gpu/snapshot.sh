#!/usr/bin/env bash
# Copies the committed tree (HEAD) to .snap/, with the commit id and the
# carried .deb files, for a GPU machine that receives files but no .git:
# what runs there is exactly a commit, whatever the working tree holds.
#
#   bash scripts/gpu/snapshot.sh

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .snap
mkdir .snap
git archive HEAD | tar -x -C .snap
git rev-parse --short=12 HEAD > .snap/.attn-tune-commit
if [ -d .devdeps ]; then cp -r .devdeps .snap/; fi
grep -qs '^/.snap/$' .git/info/exclude || { mkdir -p .git/info; echo '/.snap/' >> .git/info/exclude; }
echo "snapshot of $(cat .snap/.attn-tune-commit) in .snap/ ($(du -sh .snap | cut -f1))"
