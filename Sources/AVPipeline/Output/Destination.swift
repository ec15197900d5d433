/// Where a muxer writes, opened and checked before any input is read: the one place that decides
/// how an output name is written.
enum Destination {
    /// One file: made beside its final name and moved into place when complete, or written into as
    /// it is when `StreamOutput` says the name is standard output, a pipe, a device or a descriptor.
    case file(AtomicOutputFile)
    /// An HLS stream: a playlist and its segments in a folder, published whole (VOD) or segment by
    /// segment (live).
    case hlsFolder(HLSFolder)
    /// A network address (`NetworkOutput`): libavformat opens it itself; nothing is staged,
    /// committed or taken back, and only containers that `stream` (or HLS, uploaded) go there.
    case network(NetworkOutput)

    /// Opens `path` for `container`. `inPlace`: a fragmented recording, written under its final
    /// name from the start so that a killed process leaves every fragment before it.
    init(path: String, container: Container, inPlace: Bool, overwrite: Bool, hls: HLSOptions) throws {
        if let network = try NetworkOutput(path: path, container: container) {
            if container == .hls { try hls.validate() }
            self = .network(network)
            return
        }
        // Standard output, a FIFO or a device is written as a stream (see `StreamOutput`).
        if StreamOutput.isStream(path) {
            let into = path == AtomicOutputFile.standardOutput ? "standard output" : "a pipe or device"
            if container == .hls {
                throw AVPipelineError.invalidOption(name: "output", value: path, reason: "an HLS stream is a folder of files: name its playlist (NAME.m3u8)")
            }
            if !inPlace && !container.streams {
                // As `ffmpeg -f mp4 FIFO` ("muxer does not support non seekable output"), before anything is written.
                throw AVPipelineError.invalidOption(name: "output", value: path,
                                                    reason: "an MP4 written to \(into) must be fragmented (its index cannot be written back)")
            }
        }
        if container == .hls {
            try hls.validate()
            self = .hlsFolder(try HLSFolder(playlistPath: path, live: hls.live, growing: hls.growing, overwrite: overwrite))
        } else {
            self = .file(try AtomicOutputFile(path: path, overwrite: overwrite, inPlace: inPlace))
        }
    }

    /// What the muxer opens: a temporary file, or the playlist in the folder it writes in.
    var writingPath: String {
        switch self {
        case .file(let file): file.temporaryPath
        case .hlsFolder(let folder): folder.writingPlaylist
        case .network(let network): network.url
        }
    }

    /// Published as it is written (a live HLS stream, anything sent over the network).
    var isLive: Bool {
        switch self {
        case .file: false
        case .hlsFolder(let folder): folder.inPlace
        case .network: true
        }
    }

    /// The network address, when the output is one.
    var network: NetworkOutput? {
        if case .network(let network) = self { return network }
        return nil
    }

    /// Written into as it is (`StreamOutput`).
    var isStreamOutput: Bool {
        if case .file(let file) = self { return file.isStream }
        return false
    }

    /// Puts the finished output in place.
    func commit() throws(AVPipelineError) {
        switch self {
        case .file(let file): try file.commit()
        case .hlsFolder(let folder): try folder.commit()
        case .network: break
        }
    }

    /// What was written is all there (a file's muxer reports its own write errors; a stream's
    /// connection reports its own). An HLS upload is read back within `timeout`, its server's
    /// certificate checked as `certificates` says.
    func verify(payloadBytes: Int, live: Bool = false, timeout: Duration = .seconds(10), certificates: CertificateCheck = .system,
                interrupt: InterruptFlag = InterruptFlag()) throws(AVPipelineError) {
        switch self {
        case .file: break
        case .hlsFolder(let folder): try folder.verify(payloadBytes: payloadBytes)
        case .network(let network):
            if !network.scheme.isLiveStream {
                try UploadReadBack(output: network, timeout: timeout, certificates: certificates, interrupt: interrupt).verify(live: live, payloadBytes: payloadBytes)
            }
        }
    }
}
