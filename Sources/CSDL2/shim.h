// SDL2's audio API (the device layer ffplay uses: PulseAudio/PipeWire/ALSA on Linux, CoreAudio on
// macOS), plus the macros Swift cannot import as `avp_sdl_`-prefixed static inline functions.
#ifndef AVPIPE_CSDL2_SHIM_H
#define AVPIPE_CSDL2_SHIM_H

#include <SDL2/SDL.h>

static inline Uint32 avp_sdl_init_audio(void) { return SDL_INIT_AUDIO; }
static inline SDL_AudioFormat avp_sdl_audio_u8(void) { return AUDIO_U8; }
static inline SDL_AudioFormat avp_sdl_audio_s16sys(void) { return AUDIO_S16SYS; }
static inline SDL_AudioFormat avp_sdl_audio_s32sys(void) { return AUDIO_S32SYS; }
static inline SDL_AudioFormat avp_sdl_audio_f32sys(void) { return AUDIO_F32SYS; }
static inline int avp_sdl_allow_frequency_change(void) { return SDL_AUDIO_ALLOW_FREQUENCY_CHANGE; }
static inline int avp_sdl_allow_channels_change(void) { return SDL_AUDIO_ALLOW_CHANNELS_CHANGE; }
static inline int avp_sdl_allow_format_change(void) { return SDL_AUDIO_ALLOW_FORMAT_CHANGE; }

#ifdef __linux__
#include <dlfcn.h>

static void avp_alsa_ignore_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// alsa-lib prints its configuration errors straight to stderr (a dozen lines when there is no sound
/// card) while SDL probes drivers; SDL's own error text says what failed. Loads the library SDL will
/// load anyway (kept loaded, so the handler stays) and installs a handler that drops those lines.
static inline void avp_silence_alsa(void) {
    void *alsa = dlopen("libasound.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!alsa) return;
    typedef int (*set_handler_fn)(void (*)(const char *, int, const char *, int, const char *, ...));
    set_handler_fn set_handler = (set_handler_fn)dlsym(alsa, "snd_lib_error_set_handler");
    if (set_handler) set_handler(avp_alsa_ignore_error);
}
#else
static inline void avp_silence_alsa(void) {}
#endif

#endif
