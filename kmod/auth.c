// SPDX-License-Identifier: GPL-2.0
/*
 * The bootstrap's keys, all HMAC-SHA256 through the kernel crypto API.
 *
 * The world key K is what a world's ranks share and a stranger cannot know:
 *   - with a world secret S:	K = HMAC(S, "encd-v2 world secret")
 *   - on loopback, without one:	K = HMAC(M, "encd-v2 loopback"), where M is
 *				drawn when the module loads and never leaves it,
 *				so only ranks of this kernel (that went through
 *				/dev/encd) hold it
 *   - only where the administrator allowed worlds without a secret:
 *				K = HMAC(0^32, "encd-v2 insecure")
 *
 * A host binds K to its world before anything else, by the root's address
 * and port as the wire carries them (one listener, so one world, at a time),
 *   K_w = HMAC(K, "encd-v3 world" | addr(root))
 * and everything below is keyed with K_w (written K): a rank of one world
 * cannot be spliced into another world of the same secret (a relay between
 * two roots), nor replayed into it. The rest of a world's identity is proved
 * under K_w: its size in every JOIN (the root refuses another, saying so),
 * its token, which the root draws, in every LINK.
 *
 * A connection's handshake proves K both ways over fresh nonces, and keys
 * each direction of the link apart:
 *   proof_r = HMAC(K, "encd-v2 responder" | purpose | nonce_i | nonce_r)
 *   proof_i = HMAC(K, "encd-v2 initiator" | purpose | nonce_i | nonce_r)
 *   k_i2r   = HMAC(K, "encd-v2 key i2r" | nonce_i | nonce_r), k_r2i alike
 * and every frame after it carries the first 16 bytes of
 *   HMAC(k_dir, seq | header | payload)
 * with seq a be64 counted per direction from 0. A frame captured on one
 * link verifies on no other (other nonces, other keys) and not twice on the
 * same one (another seq). Every comparison is constant-time and every key
 * and intermediate is wiped after use.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/random.h>
#include <linux/string.h>

#include "encd_private.h"
#include "wire.h"

static u8 module_secret[ENCD_KEY_LEN];

/**
 * encd_auth_tfm() - an HMAC-SHA256 transform keyed with @key
 * @key: the key
 * @len: its length in bytes
 *
 * Return: the transform (crypto_free_shash() it), or an ERR_PTR().
 */
struct crypto_shash *encd_auth_tfm(const u8 *key, u32 len)
{
	struct crypto_shash *tfm;
	int err;

	err = encd_fault(ENCD_FAULT_CRYPTO);
	if (err)
		return ERR_PTR(err);
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return tfm;
	err = crypto_shash_setkey(tfm, key, len);
	if (err) {
		crypto_free_shash(tfm);
		return ERR_PTR(err);
	}
	return tfm;
}

/* HMAC over a label and up to three more pieces, into a whole digest. */
static int mac(struct crypto_shash *tfm, const char *label, const void *a, size_t alen,
	       const void *b, size_t blen, const void *c, size_t clen, u8 out[SHA256_DIGEST_SIZE])
{
	SHASH_DESC_ON_STACK(desc, tfm);
	int err;

	desc->tfm = tfm;
	err = crypto_shash_init(desc);
	if (!err)
		err = crypto_shash_update(desc, label, strlen(label));
	if (!err && alen)
		err = crypto_shash_update(desc, a, alen);
	if (!err && blen)
		err = crypto_shash_update(desc, b, blen);
	if (!err && clen)
		err = crypto_shash_update(desc, c, clen);
	if (!err)
		err = crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return err;
}

/**
 * encd_auth_world_tfm() - HMAC keyed with a world key bound to its world
 * @key: the world key K (encd_auth_world_key())
 * @root: the root's address, as every rank names it
 *
 * Return: the transform keyed with K_w (crypto_free_shash() it), or an
 * ERR_PTR().
 */
struct crypto_shash *encd_auth_world_tfm(const u8 *key, const struct sockaddr_storage *root)
{
	struct encd_wire_addr w;
	struct crypto_shash *tfm;
	u8 bound[SHA256_DIGEST_SIZE];
	int err;

	tfm = encd_auth_tfm(key, ENCD_KEY_LEN);
	if (IS_ERR(tfm))
		return tfm;
	encd_addr_to_wire(root, &w);
	err = mac(tfm, "encd-v3 world", &w, sizeof(w), NULL, 0, NULL, 0, bound);
	crypto_free_shash(tfm);
	tfm = err ? ERR_PTR(err) : encd_auth_tfm(bound, sizeof(bound));
	memzero_explicit(bound, sizeof(bound));
	return tfm;
}

/**
 * encd_auth_world_key() - derives a world key
 * @kind: where it comes from: ENCD_KEY_SECRET, _LOOPBACK or _INSECURE
 * @secret: the world secret (ENCD_KEY_SECRET only)
 * @len: its length
 * @owner: whose a loopback world is (ENCD_KEY_LOOPBACK only): 2 words, 'u'
 *	and a user id or 'g' and a group id, in the initial user namespace
 * @key: out: ENCD_KEY_LEN bytes
 *
 * Return: 0 or the crypto API's error.
 */
int encd_auth_world_key(enum encd_key_kind kind, const u8 *secret, u32 len, const __be32 *owner,
			u8 *key)
{
	static const u8 zero[ENCD_KEY_LEN];
	struct crypto_shash *tfm;
	size_t owner_len = 0;
	const char *label;
	int err;

	switch (kind) {
	case ENCD_KEY_SECRET:
		label = "encd-v2 world secret";
		break;
	case ENCD_KEY_LOOPBACK:
		secret = module_secret;
		len = sizeof(module_secret);
		label = "encd-v2 loopback";
		owner_len = 2 * sizeof(*owner);
		break;
	default:
		secret = zero;
		len = sizeof(zero);
		label = "encd-v2 insecure";
		break;
	}
	tfm = encd_auth_tfm(secret, len);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = mac(tfm, label, owner, owner_len, NULL, 0, NULL, 0, key);
	crypto_free_shash(tfm);
	return err;
}

/**
 * encd_auth_proof() - a handshake proof of the world key
 * @world: HMAC keyed with the world key
 * @initiator: whose proof: the initiator's or the responder's
 * @purpose: enum encd_link_purpose, as HELLO said
 * @nonce_i: the initiator's nonce
 * @nonce_r: the responder's nonce
 * @proof: out: ENCD_PROOF_LEN bytes
 *
 * Return: 0 or the crypto API's error.
 */
int encd_auth_proof(struct crypto_shash *world, bool initiator, u32 purpose, const u8 *nonce_i,
		    const u8 *nonce_r, u8 *proof)
{
	__be32 p = cpu_to_be32(purpose);

	return mac(world, initiator ? "encd-v2 initiator" : "encd-v2 responder", &p, sizeof(p),
		   nonce_i, ENCD_NONCE_LEN, nonce_r, ENCD_NONCE_LEN, proof);
}

/**
 * encd_auth_proof_ok() - checks a handshake proof, in constant time
 * @world: HMAC keyed with the world key
 * @initiator: whose proof it claims to be
 * @purpose: enum encd_link_purpose, as HELLO said
 * @nonce_i: the initiator's nonce
 * @nonce_r: the responder's nonce
 * @proof: the proof received
 *
 * Return: whether the sender holds the world key.
 */
bool encd_auth_proof_ok(struct crypto_shash *world, bool initiator, u32 purpose,
			const u8 *nonce_i, const u8 *nonce_r, const u8 *proof)
{
	u8 want[ENCD_PROOF_LEN];
	bool ok;

	ok = !encd_auth_proof(world, initiator, purpose, nonce_i, nonce_r, want) &&
	     !crypto_memneq(want, proof, sizeof(want));
	memzero_explicit(want, sizeof(want));
	return ok;
}

/**
 * encd_auth_link_tfms() - the two keyed transforms of a new link
 * @world: HMAC keyed with the world key
 * @nonce_i: the initiator's nonce
 * @nonce_r: the responder's nonce
 * @i2r: out: HMAC keyed for frames from the initiator to the responder
 * @r2i: out: and for the other way
 *
 * Return: 0, or an errno with neither transform allocated.
 */
int encd_auth_link_tfms(struct crypto_shash *world, const u8 *nonce_i, const u8 *nonce_r,
			struct crypto_shash **i2r, struct crypto_shash **r2i)
{
	u8 k[2][SHA256_DIGEST_SIZE];
	int err;

	*i2r = NULL;
	*r2i = NULL;
	err = mac(world, "encd-v2 key i2r", nonce_i, ENCD_NONCE_LEN, nonce_r, ENCD_NONCE_LEN,
		  NULL, 0, k[0]);
	if (!err)
		err = mac(world, "encd-v2 key r2i", nonce_i, ENCD_NONCE_LEN, nonce_r,
			  ENCD_NONCE_LEN, NULL, 0, k[1]);
	if (!err) {
		*i2r = encd_auth_tfm(k[0], ENCD_KEY_LEN);
		if (IS_ERR(*i2r)) {
			err = PTR_ERR(*i2r);
			*i2r = NULL;
		}
	}
	if (!err) {
		*r2i = encd_auth_tfm(k[1], ENCD_KEY_LEN);
		if (IS_ERR(*r2i)) {
			err = PTR_ERR(*r2i);
			*r2i = NULL;
			crypto_free_shash(*i2r);
			*i2r = NULL;
		}
	}
	memzero_explicit(k, sizeof(k));
	return err;
}

/**
 * encd_auth_tag() - the tag of a frame
 * @link: HMAC keyed for the frame's direction
 * @seq: the frame's sequence number in that direction
 * @frame: the header and the payload
 * @len: their length
 * @tag: out: ENCD_TAG_LEN bytes
 *
 * Return: 0 or the crypto API's error.
 */
int encd_auth_tag(struct crypto_shash *link, u64 seq, const void *frame, size_t len, u8 *tag)
{
	u8 full[SHA256_DIGEST_SIZE];
	__be64 s = cpu_to_be64(seq);
	int err;

	err = mac(link, "", &s, sizeof(s), frame, len, NULL, 0, full);
	memcpy(tag, full, ENCD_TAG_LEN);
	memzero_explicit(full, sizeof(full));
	return err;
}

/**
 * encd_auth_tag_ok() - checks a frame's tag, in constant time
 * @link: HMAC keyed for the frame's direction
 * @seq: the sequence number the frame must have
 * @frame: the header and the payload
 * @len: their length
 * @tag: the tag received
 *
 * Return: whether the frame is the next one its sender sent on this link.
 */
bool encd_auth_tag_ok(struct crypto_shash *link, u64 seq, const void *frame, size_t len,
		      const u8 *tag)
{
	u8 want[ENCD_TAG_LEN];
	bool ok;

	ok = !encd_auth_tag(link, seq, frame, len, want) && !crypto_memneq(want, tag, sizeof(want));
	memzero_explicit(want, sizeof(want));
	return ok;
}

/**
 * encd_auth_init() - draws the module's loopback secret
 */
void encd_auth_init(void)
{
	get_random_bytes(module_secret, sizeof(module_secret));
}

/**
 * encd_auth_exit() - wipes the module's loopback secret
 */
void encd_auth_exit(void)
{
	memzero_explicit(module_secret, sizeof(module_secret));
}
