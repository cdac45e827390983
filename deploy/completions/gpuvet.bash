# bash completion for gpuvet: installed to share/bash-completion/completions/gpuvet.
# Commands come from the list below (tests/scripts/package_test.sh keeps it equal to
# `gpuvet --help`); a command's flags are read from `gpuvet COMMAND --help` when asked for, so
# they are always those of the installed binary. Needs no bash-completion helper functions.
_gpuvet() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local commands="check checks explain bench trace exporter import record watch analyze fleet report"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  local cmd=${COMP_WORDS[1]}
  local prev=${COMP_WORDS[COMP_CWORD - 1]}
  case "$cmd" in
    explain)
      if [ "$COMP_CWORD" -eq 2 ]; then
        local ids
        ids=$("${COMP_WORDS[0]}" checks 2>/dev/null | awk '{print $1}' | grep -E '^[a-z_]+\.[a-z_.]+$')
        COMPREPLY=($(compgen -W "$ids" -- "$cur"))
        return
      fi
      ;;
    fleet)
      if [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "audit quarantine" -- "$cur"))
        return
      fi
      ;;
  esac
  case "$prev" in
    --format)
      COMPREPLY=($(compgen -W "text json" -- "$cur"))
      return
      ;;
    --color)
      COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
      return
      ;;
  esac
  if [[ "$cur" == -* ]]; then
    local flags
    flags=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _gpuvet gpuvet
