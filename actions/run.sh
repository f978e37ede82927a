#!/usr/bin/env bash
# Runs architect loop with the action's inputs, which arrive as INPUT_*
# environment variables and go into argv as data: nothing here evaluates
# them. architect itself writes the step outputs, the step summary, log
# groups and annotations (GITHUB_ACTIONS=true).
set -uo pipefail

args=(loop)
flag() { if [[ -n $2 ]]; then args+=("--$1=$2"); fi; }
# Pull requests and issue mode: architect github, with its own flags.
if [[ ${INPUT_PULL_REQUEST:-false} == true ]]; then
	args=(github)
	flag base "${INPUT_BASE:-}"
	flag labels "${INPUT_LABELS:-}"
	flag reviewers "${INPUT_REVIEWERS:-}"
	flag issue "${INPUT_ISSUE:-}"
	args+=("--trigger-label=${INPUT_TRIGGER_LABEL-architect}")
	if [[ ${INPUT_DRAFT:-false} == true ]]; then args+=(--draft); fi
	if [[ ${INPUT_DRAFT_ON_FAILURE:-false} == true ]]; then args+=(--draft-on-failure); fi
fi
flag spec "${INPUT_SPEC:-}"
flag agent "${INPUT_AGENT:-}"
flag agent-cmd "${INPUT_AGENT_CMD:-}"
flag model "${INPUT_MODEL:-}"
flag max-iterations "${INPUT_MAX_ITERATIONS:-}"
flag max-cost "${INPUT_MAX_COST:-}"
flag max-time "${INPUT_MAX_TIME:-}"
flag config "${INPUT_CONFIG:-}"
flag completion-tag "${INPUT_COMPLETION_TAG:-}"
case ${INPUT_WORKTREE:-false} in
"" | false) ;;
true) args+=(--worktree) ;;
*) args+=("--worktree-name=$INPUT_WORKTREE") ;;
esac
while IFS= read -r line; do
	line=${line%$'\r'}
	if [[ -n ${line//[[:space:]]/} ]]; then args+=("--check=$line"); fi
done <<<"${INPUT_CHECKS:-}"
while IFS= read -r line; do
	line=${line%$'\r'}
	if [[ -n ${line//[[:space:]]/} ]]; then args+=("$line"); fi
done <<<"${INPUT_ARGS:-}"
if [[ -n ${INPUT_TASK:-} ]]; then args+=(-- "$INPUT_TASK"); fi

# Run in the background and wait, so that the runner's SIGINT (then
# SIGTERM 7.5 s later), sent to this shell, reaches architect, which stops
# gracefully. Job control (set -m) gives architect its own process group,
# where SIGINT is not ignored and a signal to our group is not received twice.
set -m
"${ARCHITECT_BIN:-architect}" "${args[@]}" &
pid=$!
trap 'kill -INT "$pid" 2>/dev/null' INT
trap 'kill -TERM "$pid" 2>/dev/null' TERM
status=0
while :; do
	wait "$pid"
	status=$?
	# wait returns early (status > 128) when a trapped signal arrives.
	if ! kill -0 "$pid" 2>/dev/null; then break; fi
done
if [[ $status -gt 128 ]]; then
	# A signal interrupted the last wait just as architect exited.
	wait "$pid" 2>/dev/null
	s=$?
	if [[ $s -ne 127 ]]; then status=$s; fi
fi
if [[ $status -eq 1 && ${INPUT_FAIL_ON_NO_SUCCESS:-true} != true ]]; then
	echo "architect: the loop ended without success; not failing the step (fail-on-no-success: false)"
	exit 0
fi
exit "$status"
