# bash completion for spacetime
_spacetime() {
	local cur prev i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	# after -- or the first non-option word, complete the command itself
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--) _command_offset $((i + 1)); return ;;
		-o|--output|--json|--output-log|--export|--export-format|-i|--interval|--budget|--fps|--top|-p|--pid|--pgid|--record|--keep|--record-deadline|--label|--push|--otlp|--push-timeout) ((i++)) ;;
		-*) ;;
		*) _command_offset $i; return ;;
		esac
	done
	case $prev in
	-o|--output|--json|--output-log|--record) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--export) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--export-format) COMPREPLY=($(compgen -W "json csv trace svg json,csv,trace,svg" -- "$cur")); return ;;
	-i|--interval|--budget|--fps|--top|--keep|--record-deadline|--label|--push|--otlp|--push-timeout) return ;;
	-p|--pid) COMPREPLY=($(compgen -W "$(ps -o pid= -u "$(id -u)" 2>/dev/null)" -- "$cur")); return ;;
	--pgid) COMPREPLY=($(compgen -W "$(ps -o pgid= -u "$(id -u)" 2>/dev/null | sort -u)" -- "$cur")); return ;;
	esac
	if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
		# the recorded runs' commands, or a command to run
		COMPREPLY=($(compgen -W "runs replay export compare forecast push" -- "$cur") $(compgen -c -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "-s --summary -o --output --json --output-log --export --export-format -i --interval --budget --no-mouse --fps -v --verbose --execs --top --wait-tree -p --pid --pgid --record --no-record --keep --record-deadline --label --push --otlp --otlp-traces --push-timeout --no-netlink --no-rss-trace --caps -h --help -V --version --" -- "$cur"))
	else
		COMPREPLY=($(compgen -c -- "$cur"))
	fi
}
complete -F _spacetime spacetime
