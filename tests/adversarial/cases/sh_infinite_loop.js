// An endless shell loop is stopped by the time limit like an endless JS loop.
await shell('i=0; while :; do i=$((i+1)); done');
