{{/*
What every workload's pod takes from the values: the image (by digest when given), its labels, the scheduling
settings and the extension points. Each takes (dict "ctx" $ "component" "api" "values" $.Values.api): the component's
own value wins over the chart-wide one of the same name.
*/}}

{{/* repository@digest when image.digest is set (the tag is then ignored), else repository:tag. */}}
{{- define "tollgate.imageRef" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The pod's labels: podLabels (chart-wide, then the component's), under the chart's own labels, which win. */}}
{{- define "tollgate.podLabels" -}}
{{- $own := include "tollgate.componentLabels" . | fromYaml }}
{{- toYaml (merge $own (default (dict) .values.podLabels) (default (dict) .ctx.Values.podLabels)) }}
{{- end }}

{{/* The pod's metadata: labels and annotations. */}}
{{- define "tollgate.podMetadata" -}}
labels:
  {{- include "tollgate.podLabels" . | nindent 2 }}
{{- with .values.podAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Pod-level settings: pull secrets, security context, placement. nodeSelector, tolerations, affinity and
priorityClassName fall back to the chart-wide values; topologySpreadConstraints replace the soft spread across nodes
that spreadAcrossNodes adds.
*/}}
{{- define "tollgate.podSpec" -}}
{{- $v := .values }}
{{- $g := .ctx.Values }}
{{- with $g.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml $g.podSecurityContext | nindent 2 }}
{{- with (default $g.priorityClassName $v.priorityClassName) }}
priorityClassName: {{ . }}
{{- end }}
{{- with (default $g.nodeSelector $v.nodeSelector) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (default $g.tolerations $v.tolerations) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (default $g.affinity $v.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if $v.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml $v.topologySpreadConstraints | nindent 2 }}
{{- else if $g.spreadAcrossNodes }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "tollgate.componentSelectorLabels" . | nindent 8 }}
{{- end }}
{{- end }}

{{/* The component's extraEnv (after the chart's own variables, so a name given twice takes this value). */}}
{{- define "tollgate.extraEnv" -}}
{{- with .values.extraEnv }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{- define "tollgate.envFrom" -}}
{{- with .values.extraEnvFrom }}
envFrom:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* /tmp, then the component's extraVolumeMounts. */}}
{{- define "tollgate.volumeMounts" -}}
{{ include "tollgate.tmpMount" .ctx }}
{{- with .values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "tollgate.volumes" -}}
{{ include "tollgate.tmpVolume" .ctx }}
{{- with .values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The gateway's accepted Host names: the chart's list (tollgate.gatewayPublicHosts) and, with the HTTPRoutes, the
names they route to the gateway.
*/}}
{{- define "tollgate.gatewayAcceptedHosts" -}}
{{- $hosts := splitList "," (include "tollgate.gatewayPublicHosts" .) }}
{{- if .Values.httpRoute.enabled }}{{ $hosts = concat $hosts .Values.httpRoute.gatewayHosts }}{{ end }}
{{- join "," (uniq $hosts) }}
{{- end }}

{{/* The operator's allowed API URLs (tollgate.operatorAllowedApiUrls) and, by default, the HTTPRoute's API host. */}}
{{- define "tollgate.operatorApiUrls" -}}
{{- $urls := include "tollgate.operatorAllowedApiUrls" . }}
{{- if and .Values.httpRoute.enabled (not .Values.operator.allowedApiUrls) }}
{{- $urls = join "," (uniq (append (splitList "," $urls) (printf "https://%s" .Values.httpRoute.apiHost))) }}
{{- end }}
{{- $urls }}
{{- end }}
