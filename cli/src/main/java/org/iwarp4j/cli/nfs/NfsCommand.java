package org.iwarp4j.cli.nfs;

import picocli.CommandLine.Command;

/**
 * {@code iwarp nfs}: iwarp4j's NFS server ({@code serve}) and client ({@code ls}, {@code get},
 * {@code put}, {@code bench}), NFS over RPC-over-RDMA (RFC 8267) on the software RNIC or over TCP.
 */
@Command(name = "nfs", mixinStandardHelpOptions = true,
        description = {"NFSv3, NFSv4.1 and 4.2 over RPC-over-RDMA (RFC 8267) on iwarp4j's software iWARP RNIC,",
                "or over TCP. Serves a directory, lists and copies files, measures READ/WRITE throughput RDMA",
                "against TCP. NFSv3's MOUNT always travels over TCP (RFC 8267 §5.1)."},
        subcommands = {NfsServeCommand.class, NfsLsCommand.class, NfsGetCommand.class, NfsPutCommand.class,
                NfsBenchCommand.class},
        footer = {"", "Exit status: 0 done (and verified), 1 failed or not verified,", "2 usage error, 3 no connection, 130 nfs bench stopped by Ctrl-C."})
public final class NfsCommand {
}
