{{/* Names, labels and the pieces every Deployment shares. */}}

{{- define "tollgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name; components append -api, -gateway, -operator (so it stays under 63 - 17 characters). */}}
{{- define "tollgate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 46 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 46 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 46 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "tollgate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "tollgate.labels" -}}
helm.sh/chart: {{ include "tollgate.chart" . }}
{{ include "tollgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tollgate
{{- end }}

{{- define "tollgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tollgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component: (dict "ctx" $ "component" "api") */}}
{{- define "tollgate.componentLabels" -}}
{{ include "tollgate.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "tollgate.componentSelectorLabels" -}}
{{ include "tollgate.selectorLabels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}


{{- define "tollgate.operatorServiceAccountName" -}}
{{- if .Values.operator.serviceAccount.create }}
{{- default (printf "%s-operator" (include "tollgate.fullname" .)) .Values.operator.serviceAccount.name }}
{{- else }}
{{- required "operator.serviceAccount.name is required when operator.serviceAccount.create is false" .Values.operator.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret and key of the master key: the given one, or the one the chart generates. */}}
{{- define "tollgate.masterKeySecret" -}}
{{- default (printf "%s-master-key" (include "tollgate.fullname" .)) .Values.masterKey.existingSecret }}
{{- end }}

{{- define "tollgate.masterKeySecretKey" -}}
{{- if .Values.masterKey.existingSecret }}{{ .Values.masterKey.existingSecretKey }}{{ else }}masterKey{{ end }}
{{- end }}

{{/*
Refuses to render a shape that cannot work. The default runs several replicas of the API and the gateway: they share
sessions, counters, bans, budgets and the config version only through PostgreSQL and Redis.
*/}}
{{- define "tollgate.validate" -}}
{{- if and (not .Values.embedded.enabled) (not .Values.datastore.existingSecret) }}
{{- fail "\n\ndatastore.existingSecret is required: this chart runs the API and the gateway with several replicas, which share their state through PostgreSQL and Redis. Create a Secret with the keys DATABASE_URL (postgres://...) and REDIS_URL (redis://...) and set datastore.existingSecret to its name, or set embedded.enabled=true for a single-replica trial on the embedded datastores (docs/helm.md)." }}
{{- end }}
{{- $redis := .Values.datastore.redis }}
{{- if and (eq $redis.mode "sentinel") (or (not $redis.sentinels) (not $redis.sentinelName)) }}
{{- fail "\n\ndatastore.redis.mode=sentinel needs datastore.redis.sentinels (host:port of each sentinel) and datastore.redis.sentinelName (the primary's name in their configuration)." }}
{{- end }}
{{- if and (eq $redis.mode "cluster") (not $redis.clusterNodes) }}
{{- fail "\n\ndatastore.redis.mode=cluster needs datastore.redis.clusterNodes (host:port of some of the Cluster's nodes)." }}
{{- end }}
{{- if and .Values.embedded.enabled (ne (toString .Values.gateway.workers) "1") }}
{{- fail "\n\ngateway.workers needs PostgreSQL and Redis: the embedded trial runs one process (set embedded.enabled=false and datastore.existingSecret)." }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.apiHost) }}
{{- fail "\n\ningress.apiHost is required with ingress.enabled: the host name of the management API (the proxies get *.<proxyDomain>)." }}
{{- end }}
{{- if and .Values.ingress.enabled (hasSuffix ".localhost" (printf ".%s" .Values.proxyDomain)) }}
{{- fail (printf "\n\nproxyDomain is %q with ingress.enabled: set proxyDomain to a DNS name of yours (the Ingress routes *.<proxyDomain> to the gateway)." .Values.proxyDomain) }}
{{- end }}
{{- if and (not .Values.clusterLookups) (not .Values.masterKey.existingSecret) }}
{{- fail "\n\nmasterKey.existingSecret is required with clusterLookups=false: without a lookup the chart cannot find the master key it generated before, and would render a new one on every run, which a sync would apply over the key that encrypts the database. Create a Secret with TOLLGATE_MASTER_KEY (openssl rand -base64 32) and set masterKey.existingSecret to its name (docs/gitops.md)." }}
{{- end }}
{{- $watch := compact (list .Values.operator.watchNamespace (join "," .Values.operator.watchNamespaces) .Values.operator.watchNamespaceSelector) }}
{{- if and .Values.operator.enabled (gt (len $watch) 1) }}
{{- fail "\n\nset at most one of operator.watchNamespace, operator.watchNamespaces and operator.watchNamespaceSelector: the operator watches namespaces by name or by label selector, not both (none: every namespace)." }}
{{- end }}
{{- if and .Values.operator.rbac.selectorNamespaces (not .Values.operator.watchNamespaceSelector) }}
{{- fail "\n\noperator.rbac.selectorNamespaces is set without operator.watchNamespaceSelector: it names where the selector mode binds the operator's rights; with watchNamespace(s) the chart makes a Role in each watched namespace itself." }}
{{- end }}
{{- /* An existing Secret without the keys the pods read: say so now rather than in a pod's CreateContainerConfigError. */}}
{{- if .Values.clusterLookups }}
{{- $redisKey := ternary .Values.datastore.redisUrlKey .Values.datastore.databaseUrlKey (eq .Values.datastore.redis.mode "url") }}
{{- range $s := list (list .Values.datastore.existingSecret .Values.datastore.databaseUrlKey) (list .Values.datastore.existingSecret $redisKey) (list .Values.masterKey.existingSecret .Values.masterKey.existingSecretKey) }}
{{- if and (index $s 0) (not $.Values.embedded.enabled) }}
{{- $found := lookup "v1" "Secret" $.Release.Namespace (index $s 0) }}
{{- if and $found (not (hasKey (default (dict) $found.data) (index $s 1))) }}
{{- fail (printf "\n\nthe Secret %s has no key %s" (index $s 0) (index $s 1)) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* The gateway's accepted Host names: its Service's in-cluster names, the Ingress's gateway hosts, publicHosts. */}}
{{- define "tollgate.gatewayPublicHosts" -}}
{{- $svc := printf "%s-gateway" (include "tollgate.fullname" .) }}
{{- $ns := .Release.Namespace }}
{{- $hosts := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) }}
{{- if .Values.ingress.enabled }}{{ $hosts = concat $hosts .Values.ingress.gatewayHosts }}{{ end }}
{{- $hosts = concat $hosts .Values.gateway.publicHosts }}
{{- join "," (uniq $hosts) }}
{{- end }}

{{/*
The management API URLs the operator may call (TOLLGATE_OPERATOR_ALLOWED_API_URLS): operator.allowedApiUrls, else
this release's API Service by each of its in-cluster names (resolved from the operator's own namespace) and the
Ingress's API host. Connection Secrets are written by namespace users; this keeps their url on this release's API.
*/}}
{{- define "tollgate.operatorAllowedApiUrls" -}}
{{- if .Values.operator.allowedApiUrls }}
{{- join "," .Values.operator.allowedApiUrls }}
{{- else }}
{{- $svc := printf "%s-api" (include "tollgate.fullname" .) }}
{{- $ns := .Release.Namespace }}
{{- $port := int .Values.api.service.port }}
{{- $urls := list }}
{{- range $host := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) }}
{{- $urls = append $urls (printf "http://%s:%d" $host $port) }}
{{- end }}
{{- if .Values.ingress.enabled }}{{ $urls = append $urls (printf "https://%s" .Values.ingress.apiHost) }}{{ end }}
{{- join "," $urls }}
{{- end }}
{{- end }}

{{/* The Redis of the shared state (datastore.redis, docs/scaling.md): REDIS_URL, or a Sentinel or a Cluster. */}}
{{- define "tollgate.redisEnv" -}}
{{- $r := .Values.datastore.redis }}
{{- $secret := .Values.datastore.existingSecret }}
{{- if eq $r.mode "url" }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ .Values.datastore.redisUrlKey }}
{{- else }}
{{- if eq $r.mode "sentinel" }}
- name: TOLLGATE_REDIS_SENTINELS
  value: {{ join "," $r.sentinels | quote }}
- name: TOLLGATE_REDIS_SENTINEL_NAME
  value: {{ $r.sentinelName | quote }}
{{- else }}
- name: TOLLGATE_REDIS_CLUSTER_NODES
  value: {{ join "," $r.clusterNodes | quote }}
{{- end }}
{{- range $name, $key := dict "TOLLGATE_REDIS_USERNAME" $r.usernameKey "TOLLGATE_REDIS_PASSWORD" $r.passwordKey "TOLLGATE_REDIS_SENTINEL_PASSWORD" (ternary $r.sentinelPasswordKey "" (eq $r.mode "sentinel")) }}
{{- if $key }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
{{- end }}
{{- end }}
{{- if $r.tls }}
- name: TOLLGATE_REDIS_TLS
  value: "true"
{{- end }}
{{- end }}
{{- end }}

{{/* Environment shared by the API and the gateway: listeners, datastores, master key, proxy domain. */}}
{{- define "tollgate.serverEnv" -}}
- name: TOLLGATE_HOST
  value: 0.0.0.0
- name: TOLLGATE_API_PORT
  value: {{ .Values.api.port | quote }}
- name: TOLLGATE_GATEWAY_PORT
  value: {{ .Values.gateway.port | quote }}
- name: TOLLGATE_GATEWAY_ADMIN_PORT
  value: {{ .Values.gateway.adminPort | quote }}
- name: TOLLGATE_PROXY_DOMAIN
  value: {{ .Values.proxyDomain | quote }}
- name: TOLLGATE_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- if not .Values.embedded.enabled }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.datastore.existingSecret }}
      key: {{ .Values.datastore.databaseUrlKey }}
{{- include "tollgate.redisEnv" . }}
{{- end }}
- name: TOLLGATE_MASTER_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "tollgate.masterKeySecret" . }}
      key: {{ include "tollgate.masterKeySecretKey" . }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The writable directories of a read-only root filesystem: /tmp (an emptyDir). */}}
{{- define "tollgate.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end }}

{{- define "tollgate.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* What the operator watches, in words (NOTES.txt). */}}
{{- define "tollgate.operatorWatching" -}}
{{- $o := .Values.operator }}
{{- if $o.watchNamespaceSelector }}the namespaces labelled {{ $o.watchNamespaceSelector }}; RoleBindings in {{ default "no namespace yet" (join ", " $o.rbac.selectorNamespaces) }}
{{- else if $o.watchNamespaces }}{{ join ", " $o.watchNamespaces }}
{{- else }}{{ default "every namespace" $o.watchNamespace }}
{{- end }}
{{- end }}
