/**
 * Direct Data Placement (RFC 5041): tagged and untagged segments, segmentation and reassembly,
 * the STag table and its protection checks. Not yet implemented: see the project's issue tracker.
 */
package org.iwarp4j.ddp;
