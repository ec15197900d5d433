// The FFmpeg headers avpipe uses, plus what Swift cannot import from them: function-like macros
// (AVERROR, av_err2str) and macro constants become static inline functions with an `avp_` prefix.
#ifndef AVPIPE_CFFMPEG_SHIM_H
#define AVPIPE_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

static inline int avp_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int avp_error_eof(void) { return AVERROR_EOF; }
static inline int avp_error_enomem(void) { return AVERROR(ENOMEM); }
static inline int avp_error_einval(void) { return AVERROR(EINVAL); }
static inline int avp_error_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int avp_error_exit(void) { return AVERROR_EXIT; }
static inline int avp_error_experimental(void) { return AVERROR_EXPERIMENTAL; }
static inline int avp_error_patchwelcome(void) { return AVERROR_PATCHWELCOME; }
static inline int avp_error_enosys(void) { return AVERROR(ENOSYS); }
static inline int avp_errno_of(int averror) { return AVUNERROR(averror); }
static inline int64_t avp_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational avp_time_base_q(void) { return AV_TIME_BASE_Q; }
static inline int avp_input_buffer_padding_size(void) { return AV_INPUT_BUFFER_PADDING_SIZE; }
static inline int avp_pkt_flag_key(void) { return AV_PKT_FLAG_KEY; }
static inline int avp_pkt_flag_corrupt(void) { return AV_PKT_FLAG_CORRUPT; }
static inline int avp_codec_cap_variable_frame_size(void) { return AV_CODEC_CAP_VARIABLE_FRAME_SIZE; }
/// Encoders that need a device: fully hardware ones, and hybrid ones (QSV, MediaCodec) whose
/// capabilities say HYBRID instead.
static inline int avp_codec_cap_hardware(void) { return AV_CODEC_CAP_HARDWARE | AV_CODEC_CAP_HYBRID; }
static inline int avp_codec_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }
static inline int avp_fmt_globalheader(void) { return AVFMT_GLOBALHEADER; }
static inline int avp_fmt_nofile(void) { return AVFMT_NOFILE; }
static inline int avp_fmt_notimestamps(void) { return AVFMT_NOTIMESTAMPS; }
static inline int avp_avio_flag_write(void) { return AVIO_FLAG_WRITE; }
static inline int avp_avio_flag_read(void) { return AVIO_FLAG_READ; }
// FFmpeg 6.1 renamed FF_PROFILE_* to AV_PROFILE_* (the old names go in 8.0).
#ifdef AV_PROFILE_AAC_LOW
static inline int avp_profile_aac_low(void) { return AV_PROFILE_AAC_LOW; }
static inline int avp_profile_unknown(void) { return AV_PROFILE_UNKNOWN; }
#else
static inline int avp_profile_aac_low(void) { return FF_PROFILE_AAC_LOW; }
static inline int avp_profile_unknown(void) { return FF_PROFILE_UNKNOWN; }
#endif

// What an encoder takes, each list ended by its terminator (0, AV_SAMPLE_FMT_NONE, a zeroed layout,
// AV_PIX_FMT_NONE), or NULL when it takes anything. FFmpeg 7.1 (libavcodec 61.13) replaced the
// AVCodec fields with avcodec_get_supported_config.
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
static inline const void *avp_codec_supported(const AVCodec *codec, enum AVCodecConfig config) {
    const void *list = NULL;
    return avcodec_get_supported_config(NULL, codec, config, 0, &list, NULL) < 0 ? NULL : list;
}
static inline const int *avp_codec_sample_rates(const AVCodec *codec) {
    return (const int *)avp_codec_supported(codec, AV_CODEC_CONFIG_SAMPLE_RATE);
}
static inline const enum AVSampleFormat *avp_codec_sample_formats(const AVCodec *codec) {
    return (const enum AVSampleFormat *)avp_codec_supported(codec, AV_CODEC_CONFIG_SAMPLE_FORMAT);
}
static inline const AVChannelLayout *avp_codec_channel_layouts(const AVCodec *codec) {
    return (const AVChannelLayout *)avp_codec_supported(codec, AV_CODEC_CONFIG_CHANNEL_LAYOUT);
}
static inline const enum AVPixelFormat *avp_codec_pixel_formats(const AVCodec *codec) {
    return (const enum AVPixelFormat *)avp_codec_supported(codec, AV_CODEC_CONFIG_PIX_FORMAT);
}
#else
static inline const int *avp_codec_sample_rates(const AVCodec *codec) { return codec->supported_samplerates; }
static inline const enum AVSampleFormat *avp_codec_sample_formats(const AVCodec *codec) { return codec->sample_fmts; }
static inline const AVChannelLayout *avp_codec_channel_layouts(const AVCodec *codec) { return codec->ch_layouts; }
static inline const enum AVPixelFormat *avp_codec_pixel_formats(const AVCodec *codec) { return codec->pix_fmts; }
#endif

static inline int avp_fmtctx_noheader(void) { return AVFMTCTX_NOHEADER; }
static inline int avp_fmt_flag_custom_io(void) { return AVFMT_FLAG_CUSTOM_IO; }
static inline int avp_avseek_size(void) { return AVSEEK_SIZE; }
static inline int avp_avseek_force(void) { return AVSEEK_FORCE; }
static inline int avp_seek_set(void) { return SEEK_SET; }
static inline int avp_seek_cur(void) { return SEEK_CUR; }
static inline int avp_seek_end(void) { return SEEK_END; }
static inline int avp_error_eperm(void) { return AVERROR(EPERM); }
static inline int avp_codec_prop_text_sub(void) { return AV_CODEC_PROP_TEXT_SUB; }

/// A stream's display matrix (rotation/flip), or NULL. FFmpeg 6.1 moved stream side data into
/// codecpar->coded_side_data and 7.0 removed av_stream_get_side_data, so pick the API by version.
static inline const int32_t *avp_stream_display_matrix(const AVStream *stream) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                         stream->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_DISPLAYMATRIX);
    return (sd && sd->size >= 9 * sizeof(int32_t)) ? (const int32_t *)sd->data : NULL;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    return (data && size >= 9 * sizeof(int32_t)) ? (const int32_t *)data : NULL;
#endif
}

/// Gives an output stream a display matrix (9 int32 values); 0 or a negative AVERROR.
static inline int avp_stream_set_display_matrix(AVStream *stream, const int32_t *matrix) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&stream->codecpar->coded_side_data,
                                                   &stream->codecpar->nb_coded_side_data,
                                                   AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t), 0);
    if (!sd) return AVERROR(ENOMEM);
    memcpy(sd->data, matrix, 9 * sizeof(int32_t));
#else
    uint8_t *data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (!data) return AVERROR(ENOMEM);
    memcpy(data, matrix, 9 * sizeof(int32_t));
#endif
    return 0;
}

/// Whether the Matroska muxer writes a stream's display matrix (as ProjectionPoseYaw/Roll) and the
/// demuxer reads it back: FFmpeg 7.1 does, 5.1 drops it (measured with ffmpeg -c copy). Releases in
/// between were not measured: 6.1, where the matrix moved into the codec parameters, is taken.
static inline int avp_matroska_keeps_display_matrix(void) {
    return LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100);
}

/// Whether the hls muxer hands a stream's display matrix on to its fMP4 segments: it copies each
/// stream's codec parameters into the segment muxer, which carry the matrix from FFmpeg 6.1 on
/// (7.1 keeps it); in 5.1 the matrix is the AVStream's, which it does not copy.
static inline int avp_hls_keeps_display_matrix(void) {
    return LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100);
}

/// Appends a chapter to an output context (libavformat's own helper for this is private); the
/// context frees it. NULL when out of memory.
static inline AVChapter *avp_add_chapter(AVFormatContext *context, int64_t id, AVRational time_base,
                                         int64_t start, int64_t end) {
    AVChapter *chapter = av_mallocz(sizeof(AVChapter));
    if (!chapter) return NULL;
    chapter->id = id;
    chapter->time_base = time_base;
    chapter->start = start;
    chapter->end = end;
    unsigned int count = context->nb_chapters;
    AVChapter **grown = av_realloc_array(context->chapters, count + 1, sizeof(AVChapter *));
    if (!grown) { av_free(chapter); return NULL; }
    grown[count] = chapter;
    context->chapters = grown;
    context->nb_chapters = count + 1;
    return chapter;
}

/// What the callbacks below keep for one output context, which `s->opaque` points to.
typedef struct AVPOwnFiles {
    /// The first write error.
    int error;
    /// Given to every file the muxer opens (an upload's TLS checks, which hlsenc does not pass
    /// on), or NULL; the Swift owner frees it.
    AVDictionary *options;
} AVPOwnFiles;

/// For muxers that open their own files (hls: segments and playlists): libavformat's default
/// closing drops a write error (a full disk), and hlsenc ignores what closing returns. These
/// callbacks open as the default does (with the extra options) and, on close, keep the first
/// write error.
static inline int avp_tracking_io_open(AVFormatContext *s, AVIOContext **pb, const char *url, int flags,
                                       AVDictionary **options) {
    AVPOwnFiles *files = (AVPOwnFiles *)s->opaque;
    AVDictionary *own = NULL;
    if (!options) options = &own;
    if (files && files->options) av_dict_copy(options, files->options, 0);
    int result = avio_open2(pb, url, flags, &s->interrupt_callback, options);
    av_dict_free(&own);
    return result;
}
static inline int avp_tracking_io_close2(AVFormatContext *s, AVIOContext *pb) {
    if (!pb) return 0;
    avio_flush(pb);
    int written = pb->error;
    int closed = avio_close(pb);
    int result = written < 0 ? written : closed;
    AVPOwnFiles *files = (AVPOwnFiles *)s->opaque;
    if (result < 0 && files && files->error == 0) files->error = result;
    return result;
}
static inline void avp_track_io_errors(AVFormatContext *s, AVPOwnFiles *files) {
    s->opaque = files;
    s->io_open = avp_tracking_io_open;
    s->io_close2 = avp_tracking_io_close2;
}

/// A decoded frame's duration in its time base (FFmpeg 6.0 renamed pkt_duration to duration).
static inline int64_t avp_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}

static inline void avp_frame_set_duration(AVFrame *frame, int64_t duration) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    frame->duration = duration;
#else
    frame->pkt_duration = duration;
#endif
}

/// Whether a decoded picture is a keyframe (FFmpeg 6.1 moved key_frame into flags).
static inline int avp_frame_is_key(const AVFrame *frame) {
#ifdef AV_FRAME_FLAG_KEY
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame;
#endif
}

/// Whether a decoded picture is interlaced, and its top field first (FFmpeg 6.1 moved both into flags).
static inline int avp_frame_field_order(const AVFrame *frame) {
#ifdef AV_FRAME_FLAG_INTERLACED
    if (!(frame->flags & AV_FRAME_FLAG_INTERLACED)) return AV_FIELD_PROGRESSIVE;
    return (frame->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST) ? AV_FIELD_TT : AV_FIELD_BB;
#else
    if (!frame->interlaced_frame) return AV_FIELD_PROGRESSIVE;
    return frame->top_field_first ? AV_FIELD_TT : AV_FIELD_BB;
#endif
}

/// Gives copied audio whose channels have no order ("2 channels") the default layout for its count,
/// as the ffmpeg CLI guesses it for every input. FFmpeg 7.1's MP4 muxer cannot describe unordered
/// channels (PCM in MP4: "unsupported channel layout"), and 5.1's ffmpeg copies the guess too.
static inline void avp_codecpar_guess_channel_layout(AVCodecParameters *par) {
    if (par->codec_type == AVMEDIA_TYPE_AUDIO && par->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC && par->ch_layout.nb_channels > 0) {
        int channels = par->ch_layout.nb_channels;
        av_channel_layout_uninit(&par->ch_layout);
        av_channel_layout_default(&par->ch_layout, channels);
    }
}

static inline int avp_thread_frame_and_slice(void) { return FF_THREAD_FRAME | FF_THREAD_SLICE; }

/// The H.264 parser of FFmpeg < 6.1 derives the VUI frame rate with the context's ticks_per_frame,
/// which the H.264 decoder (not the parser) sets to 2; later versions use 2 themselves (and
/// deprecate the field: FF_API_TICKS_PER_FRAME appeared with that change).
static inline void avp_prepare_h264_parser_context(AVCodecContext *context) {
#ifndef FF_API_TICKS_PER_FRAME
    context->ticks_per_frame = 2;
#else
    (void)context;
#endif
}

/// Copies FFmpeg's text for an error code into `buf` (what av_err2str does, without the macro).
static inline const char *avp_err2str(int errnum, char *buf, size_t size) {
    av_strerror(errnum, buf, size);
    return buf;
}

/// Points an audio frame (format, nb_samples and ch_layout set) at `buffer`, one allocation holding
/// all its planes laid out as av_frame_get_buffer would. On success the frame owns `buffer`; on
/// failure (too small, more planes than AVFrame.data holds) nothing changes and the caller keeps it.
static inline int avp_frame_attach_audio_buffer(AVFrame *frame, AVBufferRef *buffer) {
    int channels = frame->ch_layout.nb_channels;
    int planes = av_sample_fmt_is_planar(frame->format) ? channels : 1;
    int needed = av_samples_get_buffer_size(NULL, channels, frame->nb_samples, frame->format, 0);
    if (planes > AV_NUM_DATA_POINTERS || needed < 0 || (size_t)needed > buffer->size) return AVERROR(EINVAL);
    int rc = av_samples_fill_arrays(frame->data, &frame->linesize[0], buffer->data, channels,
                                    frame->nb_samples, frame->format, 0);
    if (rc < 0) return rc;
    frame->buf[0] = buffer;
    frame->extended_data = frame->data;
    return 0;
}


// FFmpeg says why a call failed mostly in its log. While capture is on, the calling thread keeps
// the last error-level message (without the "[muxer @ 0x…]" prefix), so avpipe can put FFmpeg's
// reason in its typed error; every message still goes on to FFmpeg's default callback.
struct avp_log_capture { int on; char last_error[512]; };

/// This thread's capture state (a function-local static: header-level statics are not emitted for Swift).
static inline struct avp_log_capture *avp_log_capture_state(void) {
    static _Thread_local struct avp_log_capture state;
    return &state;
}

/// The print level, kept here too so the callback reads it without a call into libavutil.
static inline int *avp_log_level_slot(void) {
    static int level = AV_LOG_INFO;  // FFmpeg's default
    return &level;
}

static inline int avp_log_level(void) { return __atomic_load_n(avp_log_level_slot(), __ATOMIC_RELAXED); }

static inline void avp_log_set_level(int level) {
    __atomic_store_n(avp_log_level_slot(), level, __ATOMIC_RELAXED);
    av_log_set_level(level);
}

/// How many times FFmpeg's HTTP protocol said it reconnects after a dropped connection (its
/// "Will reconnect at …" warning), counted whatever the print level.
static inline long *avp_reconnect_count_slot(void) {
    static long count;
    return &count;
}
static inline long avp_reconnect_count(void) { return __atomic_load_n(avp_reconnect_count_slot(), __ATOMIC_RELAXED); }

/// How many times a TLS connection refused the server's certificate (an error-level message of
/// FFmpeg's tls protocol naming the certificate: GnuTLS's "Peer certificate failed verification",
/// "The certificate's owner does not match hostname"), counted whatever the print level: a
/// muxer's own requests (an HLS upload's segments) fail with a bare EIO.
static inline long *avp_certificate_refusal_count_slot(void) {
    static long count;
    return &count;
}
static inline long avp_certificate_refusal_count(void) { return __atomic_load_n(avp_certificate_refusal_count_slot(), __ATOMIC_RELAXED); }

/// What FFmpeg's log said about one job's connections (a demuxer's input, a muxer's output): the
/// two counts above, for that job alone. A job's FFmpeg calls run with its counters set on the
/// calling thread (`avp_job_swap`), and FFmpeg logs on the thread that made the call, so each
/// line is counted for the job whose call logged it, however many jobs share the process.
struct avp_job_counters { long reconnections; long certificate_refusals; };

static inline struct avp_job_counters **avp_job_slot(void) {
    static _Thread_local struct avp_job_counters *job;
    return &job;
}
/// Sets this thread's job (NULL: none); returns the one it replaces.
static inline struct avp_job_counters *avp_job_swap(struct avp_job_counters *job) {
    struct avp_job_counters **slot = avp_job_slot();
    struct avp_job_counters *previous = *slot;
    *slot = job;
    return previous;
}
static inline long avp_job_reconnections(struct avp_job_counters *job) { return __atomic_load_n(&job->reconnections, __ATOMIC_RELAXED); }
static inline long avp_job_certificate_refusals(struct avp_job_counters *job) { return __atomic_load_n(&job->certificate_refusals, __ATOMIC_RELAXED); }

/// Hides secrets in a printed log line: given the formatted line, writes the redacted one into
/// `out` (of `size` bytes, NUL-terminated) and returns 1, or returns 0 when nothing is hidden.
typedef int (*avp_log_redactor)(const char *line, char *out, int size);

static inline avp_log_redactor *avp_log_redactor_slot(void) {
    static avp_log_redactor redactor;
    return &redactor;
}
static inline void avp_log_set_redactor(avp_log_redactor redactor) {
    __atomic_store_n(avp_log_redactor_slot(), redactor, __ATOMIC_RELEASE);
}

/// Prints a message through the redactor: formatted as FFmpeg's default callback would (with its
/// "[muxer @ 0x…] " prefix), written as it is when it holds no secret (through the default
/// callback, colours and repeat folding included), else its redacted form. Only printed messages
/// get here, so the formatting costs nothing on a quiet run.
static inline void avp_log_print_redacted(avp_log_redactor redactor, void *context, int level, const char *format, va_list arguments) {
    static int print_prefix = 1;
    char line[2048], redacted[2048];
    va_list copy;
    va_copy(copy, arguments);
    av_log_format_line2(context, level, format, copy, line, sizeof line, &print_prefix);
    va_end(copy);
    if (redactor(line, redacted, sizeof redacted)) {
        size_t length = strlen(redacted);
        if (write(2, redacted, length) < 0) { /* nowhere to say so */ }
        return;
    }
    av_log_default_callback(context, level, format, arguments);
}

static inline void avp_log_callback(void *context, int level, const char *format, va_list arguments) {
    // Demuxers log at trace level for every sample they index or read (one or two calls a packet
    // in a copy job): return at once for what is neither captured nor printed (the high bits of
    // `level` are flags).
    int plain = level & 0xff;
    if (plain == AV_LOG_WARNING && format && strncmp(format, "Will reconnect at", 17) == 0) {
        __atomic_add_fetch(avp_reconnect_count_slot(), 1, __ATOMIC_RELAXED);
        struct avp_job_counters *job = *avp_job_slot();
        if (job) __atomic_add_fetch(&job->reconnections, 1, __ATOMIC_RELAXED);
    }
    if (plain <= AV_LOG_ERROR && format && strstr(format, "ertificate") /* Certificate, certificate */) {
        __atomic_add_fetch(avp_certificate_refusal_count_slot(), 1, __ATOMIC_RELAXED);
        struct avp_job_counters *job = *avp_job_slot();
        if (job) __atomic_add_fetch(&job->certificate_refusals, 1, __ATOMIC_RELAXED);
    }
    if (plain > AV_LOG_ERROR && plain > __atomic_load_n(avp_log_level_slot(), __ATOMIC_RELAXED)) return;
    struct avp_log_capture *capture = avp_log_capture_state();
    if (capture->on && level <= AV_LOG_ERROR) {
        char message[sizeof capture->last_error];
        va_list copy;
        va_copy(copy, arguments);
        vsnprintf(message, sizeof message, format, copy);
        va_end(copy);
        size_t length = strlen(message);
        while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == ' ')) message[--length] = 0;
        if (length > 0) memcpy(capture->last_error, message, length + 1);
    }
    if (plain > __atomic_load_n(avp_log_level_slot(), __ATOMIC_RELAXED)) return;  // captured, not printed
    avp_log_redactor redactor = __atomic_load_n(avp_log_redactor_slot(), __ATOMIC_ACQUIRE);
    if (redactor) {
        avp_log_print_redacted(redactor, context, level, format, arguments);
    } else {
        av_log_default_callback(context, level, format, arguments);
    }
}

static inline void avp_log_install_callback(void) { av_log_set_callback(avp_log_callback); }
static inline void avp_log_capture_begin(void) {
    avp_log_capture_state()->on = 1;
    avp_log_capture_state()->last_error[0] = 0;
}
/// Ends the capture; the last error message logged since it began ("" if none).
static inline const char *avp_log_capture_end(void) {
    avp_log_capture_state()->on = 0;
    return avp_log_capture_state()->last_error;
}

#endif
