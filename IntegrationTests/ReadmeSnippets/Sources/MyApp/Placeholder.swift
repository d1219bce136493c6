// scripts/check-readme-snippets.sh writes the README's snippets for this target beside this file
// (README_<line>.swift, named after the line of README.md where the block starts).
