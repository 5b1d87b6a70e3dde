# An agent-style shell script: the same question as tools_agent.js ("which services
# had failed deploys last week? file an incident for the worst one"), the way a model
# fluent in shell writes it. It runs in the sandbox's own shell: `tool` calls the
# host's tools under the same capability policy, jq and awk do the rest. Run it with
# `make demo`, or:
#   PATH=build:$PATH build/capsa shell --tools examples/tools/tools.json \
#       --policy examples/tools/policy.json examples/shell_agent.sh
set -eu

tool --list | cut -f1 | tr '\n' ' '; echo

# Failed deploys per service, minutes lost summed, worst first.
tool deploys/list > deploys.json
jq -r '.[] | select(.status == "failed") | "\(.service) \(.minutes)"' deploys.json |
  awk '{ lost[$1] += $2; n[$1]++ } END { for (s in lost) print lost[s], n[s], s }' |
  sort -rn > summary.txt
printf '%-10s %8s %s\n' service failures minutes
while read -r minutes failures service; do
  printf '%-10s %8d %s\n' "$service" "$failures" "$minutes"
done < summary.txt

# File an incident for the worst one; the policy allows one, for 20 minutes or more.
read -r minutes failures worst < summary.txt
tool incidents/create --service "$worst" --minutes "$minutes" | jq -r '"filed \(.ticket) for \(.service)"'

# What the policy refuses, the shell sees as a failed command.
second=$(sed -n 2p summary.txt)
tool incidents/create --service "$(echo "$second" | cut -d' ' -f3)" \
  --minutes "$(echo "$second" | cut -d' ' -f1)" || echo "refused, as the policy says"
tool math.add --a 1 --b 2 || echo "refused: math.add is not granted"

# Every call is in the audit trail.
grep -c '"event":"tool_call"' /log/actions.jsonl | sed 's/^/tool calls audited: /'
