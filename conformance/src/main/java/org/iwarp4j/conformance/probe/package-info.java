/**
 * {@code iwarp probe}: how a remote iWARP listener behaves, observation by observation, each
 * tied to a requirement ID of {@code docs/requirements}. Entry point {@link
 * org.iwarp4j.conformance.probe.Probe}; the probe list is in {@code docs/probe.md}.
 */
package org.iwarp4j.conformance.probe;
