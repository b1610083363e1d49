# Sourced by start.sh and docker-entrypoint.sh: defines load_env_file FILE.
#
# Why not `set -a; . .env`: sourcing runs the file as shell (a line X=$(cmd) runs cmd with
# the person's authority), and every line overrides the environment, so the template's
# empty ANTHROPIC_API_KEY= erased a key exported in the shell. Here the file is read, never
# run: each line is KEY=VALUE (optionally `export KEY=VALUE`, the value optionally in single
# or double quotes, taken literally; # starts a comment line or, after a space, a trailing
# comment of an unquoted value). A variable already set (in the environment or the calling
# script) is never overridden, an empty value is ignored, and any other line is skipped
# with one warning that names the line (never its content: it may hold a secret).

load_env_file() {
  local file=$1 line key value number=0
  while IFS= read -r line || [ -n "$line" ]; do
    number=$((number + 1))
    line=${line%$'\r'}
    line=${line#"${line%%[![:space:]]*}"}
    [ -z "$line" ] && continue
    [ "${line:0:1}" = "#" ] && continue
    [[ $line =~ ^export[[:space:]]+(.*)$ ]] && line=${BASH_REMATCH[1]}
    if ! [[ $line =~ ^([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*=[[:space:]]*(.*)$ ]]; then
      echo "warning: $file line $number is not KEY=VALUE; skipped" >&2
      continue
    fi
    key=${BASH_REMATCH[1]}
    value=${BASH_REMATCH[2]}
    value=${value%"${value##*[![:space:]]}"}
    if [[ $value =~ ^\"(.*)\"$ ]] || [[ $value =~ ^\'(.*)\'$ ]]; then
      value=${BASH_REMATCH[1]}
    else
      [[ $value =~ ^(.*[^[:space:]])?[[:space:]]+#.*$ ]] && value=${BASH_REMATCH[1]}
      [ "${value:0:1}" = "#" ] && value=""
    fi
    [ -z "$value" ] && continue
    [ -n "${!key+set}" ] && continue
    export "$key=$value"
  done <"$file"
}
