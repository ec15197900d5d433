internal import CFFmpeg
import Synchronization

/// A flag FFmpeg polls through `AVIOInterruptCB` while it blocks in I/O (`avformat_open_input`,
/// `av_read_frame`): raising it from any thread makes the blocked call return `AVERROR_EXIT`
/// promptly. A flag may have a parent (a demuxer's flag above its tracks' flags): raising the
/// parent interrupts every child.
final class InterruptFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    private let parent: InterruptFlag?

    init(parent: InterruptFlag? = nil) { self.parent = parent }

    func raise() { raised.store(true, ordering: .relaxed) }

    var isRaised: Bool { raised.load(ordering: .relaxed) || (parent?.isRaised ?? false) }

    /// The callback to install in an `AVFormatContext`. `opaque` is unretained: the owner of the
    /// context keeps this flag alive for as long as the context exists.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().isRaised ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
