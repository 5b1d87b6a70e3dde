// The run's value is printed by the capsa command, like the script's output:
// --max-output must bound it too.
return 'v'.repeat(10 * 1024 * 1024);
