/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libenc-json: the JSON form of a collective program
 * (Documentation/program-format.rst), read into an enc_program of
 * <enc/program.h>. A library of its own, so that a program that never reads
 * JSON links libenc without json-c: link it with
 * `pkg-config --libs libenc-json` (-lenc-json -lenc).
 *
 * Failures are reported like libenc's: an NRT_STATUS, a sentence that
 * names the field, read with enc_last_error(), and a reason, read with
 * enc_last_reason(): ENCD_REASON_BAD_PROGRAM for text that is not a program,
 * ENCD_REASON_ARGUMENT for a NULL argument, ENCD_REASON_NO_MEMORY, and
 * ENCD_REASON_NONE for a file that cannot be read. Thread-safe; the program
 * made is the caller's, to use from one thread at a time.
 */
#ifndef _ENC_JSON_H
#define _ENC_JSON_H

#include <enc/enc.h>
#include <enc/program.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the JSON form; *@progp is the caller's to free with enc_program_free(). */
NRT_STATUS enc_program_from_json_string(const char *json, struct enc_program **progp);
NRT_STATUS enc_program_from_json_file(const char *path, struct enc_program **progp);

#ifdef __cplusplus
}
#endif

#endif /* _ENC_JSON_H */
