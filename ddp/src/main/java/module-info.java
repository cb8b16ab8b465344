/** DDP (RFC 5041): tagged and untagged placement, segmentation, the STag table. */
module org.iwarp4j.ddp {
    requires transitive org.iwarp4j.mpa;

    exports org.iwarp4j.ddp;
}
