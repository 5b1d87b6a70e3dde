/* capsa run and capsa shell (cli/run.c). */
#ifndef CAPSA_CLI_RUN_H
#define CAPSA_CLI_RUN_H

/* Runs `capsa run` (shell 0) or `capsa shell` (shell 1) with argv[0..argc), argv[0]
 * the command's name. Returns the exit status. */
int cli_run(int argc, char **argv, int shell);

#endif
