/**
 * Wire formats of ONC RPC (RFC 5531 §9): the call and reply headers. Not API; the public
 * types in {@code org.iwarp4j.oncrpc} use them.
 */
package org.iwarp4j.oncrpc.internal;
