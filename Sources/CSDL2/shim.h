// SDL2's audio and video API (the device and window layer ffplay uses: PulseAudio/PipeWire/ALSA
// and X11/Wayland on Linux, CoreAudio and Cocoa on macOS), plus the macros Swift cannot import as `avp_sdl_`-prefixed static inline functions.
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

static inline Uint32 avp_sdl_init_video(void) { return SDL_INIT_VIDEO; }
static inline int avp_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }
static inline Uint32 avp_sdl_window_flags(int fullscreen) {
    return SDL_WINDOW_RESIZABLE | SDL_WINDOW_HIDDEN | (fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
}
static inline Uint32 avp_sdl_window_fullscreen_desktop(void) { return SDL_WINDOW_FULLSCREEN_DESKTOP; }
static inline Uint32 avp_sdl_pixelformat_iyuv(void) { return SDL_PIXELFORMAT_IYUV; }
static inline Uint32 avp_sdl_pixelformat_nv12(void) { return SDL_PIXELFORMAT_NV12; }
static inline Uint32 avp_sdl_pixelformat_nv21(void) { return SDL_PIXELFORMAT_NV21; }
static inline Uint32 avp_sdl_pixelformat_yuy2(void) { return SDL_PIXELFORMAT_YUY2; }
static inline Uint32 avp_sdl_pixelformat_uyvy(void) { return SDL_PIXELFORMAT_UYVY; }
static inline int avp_sdl_texture_streaming(void) { return SDL_TEXTUREACCESS_STREAMING; }
static inline int avp_sdl_flip(int horizontal) { return horizontal ? SDL_FLIP_HORIZONTAL : SDL_FLIP_NONE; }
static inline int avp_sdl_yuv_mode(int full_range, int bt709) {
    return full_range ? SDL_YUV_CONVERSION_JPEG : bt709 ? SDL_YUV_CONVERSION_BT709 : SDL_YUV_CONVERSION_BT601;
}
static inline Uint32 avp_sdl_user_event(void) { return SDL_USEREVENT; }
static inline Uint32 avp_sdl_quit_event(void) { return SDL_QUIT; }
static inline Uint32 avp_sdl_keydown_event(void) { return SDL_KEYDOWN; }
static inline Uint32 avp_sdl_window_event(void) { return SDL_WINDOWEVENT; }
static inline Uint8 avp_sdl_window_close(void) { return SDL_WINDOWEVENT_CLOSE; }

/// Keys the player knows, as SDL keycodes (the arrows are not plain characters).
static inline SDL_Keycode avp_sdl_key_left(void) { return SDLK_LEFT; }
static inline SDL_Keycode avp_sdl_key_right(void) { return SDLK_RIGHT; }
static inline SDL_Keycode avp_sdl_key_up(void) { return SDLK_UP; }
static inline SDL_Keycode avp_sdl_key_down(void) { return SDLK_DOWN; }
static inline SDL_Keycode avp_sdl_key_escape(void) { return SDLK_ESCAPE; }

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
