/* cmd/offload.h - `rdmactl offload tx|rx`: one MKEY transform run locally, no daemon. */
#ifndef CMD_OFFLOAD_H
#define CMD_OFFLOAD_H

/*
 * rdmactl offload tx|rx --config FILE [--key-file FILE] [--report FILE] < IN > OUT
 *
 * argv holds the words after "rdmactl" or after "offload" (a leading "offload" is skipped):
 * { "tx", "--config", "c.json", ... }.  Reads IN from standard input (memory bytes for tx, wire
 * bytes for rx), writes OUT to standard output, the mkey-check record as JSON to --report.
 * Returns the exit status: 0 done (also when a signature error was found), 1 bad configuration,
 * key or input (reason on stderr), 2 usage error.
 */
int offload_main(int argc, char **argv);

#endif
