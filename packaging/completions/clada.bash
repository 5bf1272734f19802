# bash completion for clada (source it, or install as
# /usr/share/bash-completion/completions/clada).
_clada() {
  local cur prev commands flags
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  commands="run validate parse instructions schema config approve context undo step-back step-forward squash log listen mcp help version"
  flags="--root --allow --dry-run --json --timeout --total-timeout --max-output --report-budget --max-file-size --max-input --exec --no-git --git --git-author --lock-timeout --quiet --output-mode --error-detail --lock-file --allow-escape --report --help --version"
  case $prev in
    --root|--allow|--lock-file) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --exec) COMPREPLY=($(compgen -W "allow deny approve" -- "$cur")); return ;;
    --git) COMPREPLY=($(compgen -W "auto off require" -- "$cur")); return ;;
    --report) COMPREPLY=($(compgen -W "auto clada cml csl" -- "$cur")); return ;;
    --output-mode) COMPREPLY=($(compgen -W "stream buffer silent" -- "$cur")); return ;;
    --error-detail) COMPREPLY=($(compgen -W "minimal full debug" -- "$cur")); return ;;
    --dialect) COMPREPLY=($(compgen -W "sham cml csl replacer apply_patch search_replace udiff" -- "$cur")); return ;;
    --host) COMPREPLY=($(compgen -W "claude-desktop claude-code vscode cursor codex gemini windsurf zed" -- "$cur")); return ;;
    --mode) COMPREPLY=($(compgen -W "auto_ai ai_messages hours days msg_contains" -- "$cur")); return ;;
    context) COMPREPLY=($(compgen -W "add remove list prune clear show" -- "$cur")); return ;;
    mcp) COMPREPLY=($(compgen -W "config $flags" -- "$cur")); return ;;
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags --dialect --host --mode --debounce -n" -- "$cur"))
  elif [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "$commands" -- "$cur") $(compgen -f -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _clada clada
