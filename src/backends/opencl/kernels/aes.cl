/*
 * The AES program: ECB, CBC, CTR, XTS and GCM over the dialect AES core, and
 * the GHASH partials of GCM (ghash.cl).
 */
#include "ghash.cl"
