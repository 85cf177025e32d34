import CLibWebSockets
import Foundation

/// The C tables lws reads for the life of its context, allocated together and freed
/// together in `deinit`, after the context is destroyed.
final class LWSTables {
    private var strings: [UnsafeMutablePointer<CChar>] = []
    let protocols: UnsafeMutablePointer<lws_protocols>
    let protocolOptions: UnsafeMutablePointer<lws_protocol_vhost_options>
    let mounts: UnsafeMutablePointer<lws_http_mount>
    let mimeTypes: UnsafeMutablePointer<lws_protocol_vhost_options>
    let retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>
    /// A request's path is cut at one byte over `RequestLine.maxPathBytes`: lws would otherwise
    /// close a connection whose path overflows its header space without a status line; cut, the
    /// request reaches the filter callback, which answers 400.
    let tokenLimits: UnsafeMutablePointer<lws_token_limits>
    let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let mountCount: Int
    private let mimeCount: Int
    private static let dynamicPaths = ["/healthz", "/metrics", "/api"]
    static let txPacketSize = 256 * 1024 + 64
    private static let mimeTable: [(String, String)] = [
        (".js", "text/javascript"), (".mjs", "text/javascript"), (".css", "text/css"),
        (".html", "text/html"), (".svg", "image/svg+xml"), (".json", "application/json"),
        (".webmanifest", "application/manifest+json"), (".png", "image/png"), (".ico", "image/x-icon"),
        (".txt", "text/plain"), ("*", "application/octet-stream"),
    ]

    init(webRoot: String, folders: [(mountPoint: String, folder: String)] = [], rxBufferSize: Int,
         callback: @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int32) {
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocolOptions = .allocate(capacity: 2)
        protocolOptions.initialize(repeating: lws_protocol_vhost_options(), count: 2)
        mountCount = Self.dynamicPaths.count + folders.count + 1
        mounts = .allocate(capacity: mountCount)
        mounts.initialize(repeating: lws_http_mount(), count: mountCount)
        mimeCount = Self.mimeTable.count
        mimeTypes = .allocate(capacity: mimeCount)
        mimeTypes.initialize(repeating: lws_protocol_vhost_options(), count: mimeCount)
        retryPolicy = .allocate(capacity: 1)
        retryPolicy.initialize(to: lws_retry_bo_t())
        tokenLimits = .allocate(capacity: 1)
        tokenLimits.initialize(to: lws_token_limits())
        withUnsafeMutableBytes(of: &tokenLimits.pointee.token_limit) { raw in
            let limits = raw.bindMemory(to: UInt16.self)
            for token in [WSI_TOKEN_GET_URI, WSI_TOKEN_POST_URI, WSI_TOKEN_OPTIONS_URI, WSI_TOKEN_PUT_URI,
                          WSI_TOKEN_PATCH_URI, WSI_TOKEN_DELETE_URI, WSI_TOKEN_CONNECT, WSI_TOKEN_HEAD_URI] {
                limits[Int(token.rawValue)] = UInt16(RequestLine.maxPathBytes + 1)  // 0, the rest: only lws's header space
            }
        }
        foreignLoops = .allocate(capacity: 1)
        foreignLoops.initialize(to: nil)

        let gameProtocol = string("boardcast.v1")
        protocols[0].name = UnsafePointer(gameProtocol)
        protocols[0].callback = callback
        protocols[0].per_session_data_size = 16
        // Allocated per connection, and the most read per connection per wake-up.
        protocols[0].rx_buffer_size = rxBufferSize
        // lws sends at most this per system call (without it, the receive buffer's size): a
        // connection's coalesced frames go out in one `send()`, however small the receive buffer.
        protocols[0].tx_packet_size = LWSTables.txPacketSize

        // Plain clients (websocat, `new WebSocket(url)`) offer no subprotocol: bind them to ours.
        protocolOptions[1].name = UnsafePointer(string("default"))
        protocolOptions[1].value = UnsafePointer(string("1"))
        protocolOptions[0].name = UnsafePointer(gameProtocol)
        protocolOptions[0].value = UnsafePointer(string(""))
        protocolOptions[0].options = UnsafePointer(protocolOptions + 1)

        for (i, (ext, type)) in Self.mimeTable.enumerated() {
            mimeTypes[i].name = UnsafePointer(string(ext))
            mimeTypes[i].value = UnsafePointer(string(type))
            if i + 1 < mimeCount { mimeTypes[i].next = UnsafePointer(mimeTypes + i + 1) }
        }
        for (i, path) in Self.dynamicPaths.enumerated() {
            mounts[i].mountpoint = UnsafePointer(string(path))
            mounts[i].mountpoint_len = UInt8(path.utf8.count)
            mounts[i].origin = UnsafePointer(gameProtocol)
            mounts[i].origin_protocol = UInt8(LWSMPRO_CALLBACK.rawValue)
            mounts[i].mount_next = UnsafePointer(mounts + i + 1)
        }
        for (offset, (mountPoint, folder)) in folders.enumerated() {
            let mount = mounts + Self.dynamicPaths.count + offset
            mount.pointee.mountpoint = UnsafePointer(string(mountPoint))
            mount.pointee.mountpoint_len = UInt8(mountPoint.utf8.count)
            mount.pointee.origin = UnsafePointer(string(folder))
            mount.pointee.def = UnsafePointer(string("index.js"))
            mount.pointee.origin_protocol = UInt8(LWSMPRO_FILE.rawValue)
            mount.pointee.extra_mimetypes = UnsafePointer(mimeTypes)
            mount.pointee.cache_max_age = 0
            mount.pointee.mount_next = UnsafePointer(mounts + Self.dynamicPaths.count + offset + 1)
        }
        let files = mounts + Self.dynamicPaths.count + folders.count
        files.pointee.mountpoint = UnsafePointer(string("/"))
        files.pointee.mountpoint_len = 1
        files.pointee.origin = UnsafePointer(string(webRoot))
        files.pointee.def = UnsafePointer(string("index.html"))
        files.pointee.origin_protocol = UInt8(LWSMPRO_FILE.rawValue)
        files.pointee.extra_mimetypes = UnsafePointer(mimeTypes)
        files.pointee.cache_max_age = 0

        // No validity timers: lws would keep one per connection in a sorted list (an O(n)
        // insert each). `KeepaliveWheel` pings and hangs up instead.
        retryPolicy.pointee.secs_since_valid_ping = 0
        retryPolicy.pointee.secs_since_valid_hangup = 0
    }

    deinit {
        for pointer in strings { free(pointer) }
        protocols.deinitialize(count: 2).deallocate()
        protocolOptions.deinitialize(count: 2).deallocate()
        mounts.deinitialize(count: mountCount).deallocate()
        mimeTypes.deinitialize(count: mimeCount).deallocate()
        retryPolicy.deinitialize(count: 1).deallocate()
        tokenLimits.deinitialize(count: 1).deallocate()
        foreignLoops.deinitialize(count: 1).deallocate()
    }

    private func string(_ s: String) -> UnsafeMutablePointer<CChar> {
        let pointer = strdup(s)!
        strings.append(pointer)
        return pointer
    }
}
