import AVPipeline
import CAllocatorTuning

/// HLS output under the CLI's fixed 256 KiB mmap threshold costs a page fault per 4 KiB written
/// (17,600 more than ffmpeg on a 600 s movie: the hls muxer's per-segment buffer is mapped afresh
/// each time). Raising the threshold from the start instead puts the demuxers' sample indexes in
/// the heap, which then fragments (RSS +3 MiB from 60 s to 600 s). So it is raised once the first
/// packet is written: by then every input is open and indexed.
enum SegmentAllocation {
    /// `update`, first raising the thresholds at the first call when `container` is HLS.
    static func progress(for container: Container, _ update: ((MediaTime) -> Void)?) -> ((MediaTime) -> Void)? {
        guard container == .hls else { return update }
        var raised = false
        return { position in
            if !raised {
                raised = true
                avp_keep_segment_buffers()
            }
            update?(position)
        }
    }

    /// Raises the thresholds (for an HLS output whose first packet is written).
    static func raise() { avp_keep_segment_buffers() }
}
