/* capsa serve: sessions over HTTP/JSON, kept in a shared store (see serve.c). */
#ifndef CAPSA_CLI_SERVE_H
#define CAPSA_CLI_SERVE_H

/* Runs `capsa serve` with argv[0] "serve"; returns the exit status. */
int cli_serve(int argc, char **argv);

#endif
