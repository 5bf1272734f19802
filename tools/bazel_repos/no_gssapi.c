/* The GSSAPI entry points that Debian's static libgit2.a refers to, each
 * answering "unavailable".
 *
 * libgit2 calls them only for HTTP "Negotiate" (Kerberos) authentication,
 * inside its network transports. clada opens no remote: it never clones,
 * fetches or pushes (git-tx's actions are undo, step-back, step-forward and
 * squash, all local). Debian ships no static libgssapi_krb5, so linking the
 * real one would make the binary need five MIT Kerberos shared libraries at
 * run time for code it never runs. With these, the binary needs only the C
 * library (ldd: libc, libm, the loader; tools/release.sh checks it).
 *
 * If a future libgit2 path did reach them, each reports GSS_S_UNAVAILABLE
 * and libgit2 takes Negotiate as not offered (gss_indicate_mechs fails
 * first, before any other call).
 */
#include <stddef.h>
#include <stdint.h>

typedef uint32_t OM_uint32;

/* GSS_S_UNAVAILABLE: routine error 16, shifted into the routine-error field. */
#define CLADA_GSS_S_UNAVAILABLE ((OM_uint32)16u << 16)

static OM_uint32 Unavailable(OM_uint32* minor_status) {
  if (minor_status != NULL) *minor_status = 0;
  return CLADA_GSS_S_UNAVAILABLE;
}

/* gss_OID constant; libgit2 passes it to gss_import_name only. */
void* GSS_C_NT_HOSTBASED_SERVICE = NULL;

OM_uint32 gss_indicate_mechs(OM_uint32* minor_status, void** mech_set) {
  if (mech_set != NULL) *mech_set = NULL;
  return Unavailable(minor_status);
}

OM_uint32 gss_import_name(OM_uint32* minor_status, const void* input_name_buffer,
                          const void* input_name_type, void** output_name) {
  (void)input_name_buffer;
  (void)input_name_type;
  if (output_name != NULL) *output_name = NULL;
  return Unavailable(minor_status);
}

OM_uint32 gss_init_sec_context(OM_uint32* minor_status, const void* claimant_cred,
                               void** context_handle, const void* target_name,
                               const void* mech_type, OM_uint32 req_flags,
                               OM_uint32 time_req, const void* input_chan_bindings,
                               const void* input_token, void** actual_mech_type,
                               void* output_token, OM_uint32* ret_flags,
                               OM_uint32* time_rec) {
  (void)claimant_cred;
  (void)context_handle;
  (void)target_name;
  (void)mech_type;
  (void)req_flags;
  (void)time_req;
  (void)input_chan_bindings;
  (void)input_token;
  (void)output_token;
  if (actual_mech_type != NULL) *actual_mech_type = NULL;
  if (ret_flags != NULL) *ret_flags = 0;
  if (time_rec != NULL) *time_rec = 0;
  return Unavailable(minor_status);
}

OM_uint32 gss_display_status(OM_uint32* minor_status, OM_uint32 status_value,
                             int status_type, const void* mech_type,
                             OM_uint32* message_context, void* status_string) {
  (void)status_value;
  (void)status_type;
  (void)mech_type;
  (void)status_string;
  if (message_context != NULL) *message_context = 0;
  return Unavailable(minor_status);
}

OM_uint32 gss_delete_sec_context(OM_uint32* minor_status, void** context_handle,
                                 void* output_token) {
  (void)context_handle;
  (void)output_token;
  if (minor_status != NULL) *minor_status = 0;
  return 0;
}

OM_uint32 gss_release_buffer(OM_uint32* minor_status, void* buffer) {
  (void)buffer;
  if (minor_status != NULL) *minor_status = 0;
  return 0;
}

OM_uint32 gss_release_name(OM_uint32* minor_status, void** name) {
  (void)name;
  if (minor_status != NULL) *minor_status = 0;
  return 0;
}

OM_uint32 gss_release_oid_set(OM_uint32* minor_status, void** set) {
  (void)set;
  if (minor_status != NULL) *minor_status = 0;
  return 0;
}
