/**
 * The identities the simulated components run under when the server authorizes (docs/auth.md), and `ClientAs`, the
 * service a simulation offers its components to get a client as one of them. Components present a client
 * certificate in-process (the transport vouches for it, as a TLS handshake would); the bootstrap policy binds each
 * identity to its least-privilege role.
 */
import { Context } from "effect"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { Credentials } from "./Authenticator.js"
import { nodeControllerUserName, nodesGroup, schedulerUserName, nodeControllerAccount } from "./BootstrapPolicy.js"
import { privilegedGroup, serviceAccountGroups } from "./UserInfo.js"

const certificate = (user: string, groups: ReadonlyArray<string>): Credentials => ({ clientCertificate: { commonName: user, organizations: groups, verified: true } })

/** A node agent: `system:node:<name>` in `system:nodes`. */
export const nodeAgentCredentials = (nodeName: string): Credentials => certificate(`system:node:${nodeName}`, [nodesGroup])
export const schedulerCredentials: Credentials = certificate(schedulerUserName, [])
export const nodeControllerCredentials: Credentials = certificate(nodeControllerUserName, serviceAccountGroups(nodeControllerAccount.namespace))
/** The API server's own loopback client (upstream `system:apiserver` in `system:masters`): event expiry is its job. */
export const apiserverCredentials: Credentials = certificate("system:apiserver", [privilegedGroup])

/** A client acting as `credentials`; present in a simulation whose server authorizes requests. */
export class ClientAs extends Context.Tag("clustersim/ClientAs")<ClientAs, (credentials: Credentials) => ApiClientService>() {}
