/// The tables the hub's parts share, made once by `Hub` and handed to `Play`, `Admission` and
/// `Handover`: classes, so each part sees the others' changes at once on the one thread.
struct HubParts {
    let sessions: SessionTable
    let rooms: RoomTable
    let durability: Durability
    let pending: PendingTable<PendingRequest>
    let solver: SolverDesk
    let lobby: LobbyFeed
}
