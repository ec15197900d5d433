/// The container rules the `Muxer` applies when it opens a file: libavformat's flags for each
/// container, written to a file, an HLS folder or a network address (the codecs each container
/// takes are in `ContainerCodecs`, the fix-ups of finished files beside them).
extension Muxer.Options {
    /// The muxer's options for the local copy (`NetworkOptions.localCopy`): fragmented, and for
    /// MP4/MOV with the `moov` written with the first fragment (`delay_moov`), when every track's
    /// first time is known. Written before any packet (`empty_moov`), it cannot say that a track
    /// starts later than the first packet written (an AAC track starting 57 ms after the video,
    /// whose B-frame delay the muxer shifts every time by): the mov muxer puts that track's first
    /// packet at 0 ("starts with a nonzero dts … while the moov already has been written").
    func localCopyFlags(_ container: Container, _ target: Destination) -> [String: String] {
        var options = muxerFlags(container, target, fragmented: true)
        if container.isISOBMFF, let flags = options["movflags"] { options["movflags"] = flags + "+delay_moov" }
        return options
    }

    /// The muxer's options for `container` written to `target` (`fragmented`: in self-contained
    /// pieces that survive the process being killed).
    func muxerFlags(_ container: Container, _ target: Destination, fragmented: Bool) -> [String: String] {
        if case .hlsFolder(let folder) = target { return hls.muxerOptions(folder) }
        if let network = target.network {
            if container == .hls { return hls.muxerOptions(upload: network, timeout: self.network.timeout) }
            // A stream's length and size are not known at its start and cannot be written back.
            if container == .flv { return ["flvflags": "no_duration_filesize"] }
        }
        if container == .flv { return fragmented ? ["flush_packets": "1"] : [:] }
        if container.isMatroska {
            // Matroska is a series of clusters already: "fragmented" closes one at least every
            // fragment duration and hands it to the OS at once.
            let milliseconds = fragmentDuration.converted(to: Rational(1, 1000)).value
            return fragmented ? ["cluster_time_limit": "\(milliseconds)", "flush_packets": "1"] : [:]
        }
        if container == .ts {
            // A transport stream is always readable up to its last packet; "fragmented" only
            // hands what is written to the OS at once. max_delay: the 0.7 s of decoder buffering
            // ffmpeg allows, which puts the first presentation 1.4 s after the clock starts, as
            // players (and the T-STD buffer model) expect.
            return ["max_delay": "700000"].merging(fragmented ? ["flush_packets": "1"] : [:]) { $1 }
        }
        if fragmented {
            let microseconds = fragmentDuration.converted(to: Rational(1, 1_000_000)).value
            // flush_packets: hand each completed fragment to the OS at once (libavformat only does
            // so by itself for unseekable outputs), so a killed process loses the current one only.
            var flags = ["movflags": "+frag_keyframe+empty_moov+default_base_moof", "frag_duration": "\(microseconds)",
                         "flush_packets": "1"]
            // default_base_moof makes the mp4 muxer's major brand `iso5`, which some readers
            // (AtomicParsley) refuse; `isom` is accurate too, and `iso6` stays a compatible brand.
            if container == .mp4 { flags["brand"] = "isom" }
            return flags
        }
        return faststart ? ["movflags": "+faststart"] : [:]
    }
}
