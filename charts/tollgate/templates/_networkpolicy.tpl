{{/* The pieces of the NetworkPolicies (networkpolicy.yaml); each takes the root context. */}}

{{/* Every pod of this release, in its namespace. */}}
{{- define "tollgate.np.releasePods" -}}
- podSelector:
    matchLabels:
      {{- include "tollgate.selectorLabels" . | nindent 6 }}
{{- end }}

{{/* An ingress rule for the admin or health port: the release's pods and networkPolicy.metricsFrom. */}}
{{- define "tollgate.np.internalPort" -}}
- from:
    {{- include "tollgate.np.releasePods" .ctx | nindent 4 }}
    {{- with .ctx.Values.networkPolicy.metricsFrom }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    - port: {{ .port }}
      protocol: TCP
{{- end }}

{{/* DNS, the upstreams and extraEgress: what the API and the gateway both reach (the datastore rule is apart). */}}
{{- define "tollgate.np.egressCommon" -}}
{{- $np := .Values.networkPolicy -}}
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
  {{- with $np.dns.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- /* An egress rule with no `to` allows every address: an empty upstream list must allow none. */}}
{{- with $np.upstreams }}
- to:
    {{- toYaml . | nindent 4 }}
{{- end }}
{{- with $np.extraEgress }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "tollgate.np.datastore" -}}
{{- $ds := .Values.networkPolicy.datastore -}}
{{ if $ds.ports -}}
- ports:
    {{- range $ds.ports }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
  {{- with $ds.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}
