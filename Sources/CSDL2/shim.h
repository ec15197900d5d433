// SDL2's audio API (the device layer ffplay uses: PulseAudio/PipeWire/ALSA on Linux, CoreAudio on
// macOS), plus the macros Swift cannot import as `avp_sdl_`-prefixed static inline functions.
#ifndef AVPIPE_CSDL2_SHIM_H
#define AVPIPE_CSDL2_SHIM_H

#include <SDL.h>

static inline Uint32 avp_sdl_init_audio(void) { return SDL_INIT_AUDIO; }
static inline SDL_AudioFormat avp_sdl_audio_u8(void) { return AUDIO_U8; }
static inline SDL_AudioFormat avp_sdl_audio_s16sys(void) { return AUDIO_S16SYS; }
static inline SDL_AudioFormat avp_sdl_audio_s32sys(void) { return AUDIO_S32SYS; }
static inline SDL_AudioFormat avp_sdl_audio_f32sys(void) { return AUDIO_F32SYS; }
static inline int avp_sdl_allow_frequency_change(void) { return SDL_AUDIO_ALLOW_FREQUENCY_CHANGE; }
static inline int avp_sdl_allow_channels_change(void) { return SDL_AUDIO_ALLOW_CHANNELS_CHANGE; }
static inline int avp_sdl_allow_format_change(void) { return SDL_AUDIO_ALLOW_FORMAT_CHANGE; }

#endif
