{{/* What the ServiceMonitors and the PodMonitors share. */}}

{{/* Labels of a monitor: monitoring.labels (the Prometheus's selector), under the component's labels. */}}
{{- define "tollgate.monitorLabels" -}}
{{- $own := include "tollgate.componentLabels" . | fromYaml }}
{{- toYaml (merge $own (default (dict) .ctx.Values.monitoring.labels)) }}
{{- end }}

{{/* The scrape settings of one endpoint, after its port. */}}
{{- define "tollgate.scrapeSettings" -}}
{{- $m := .Values.monitoring -}}
path: /metrics
scheme: http
{{- with $m.interval }}
interval: {{ . }}
{{- end }}
{{- with $m.scrapeTimeout }}
scrapeTimeout: {{ . }}
{{- end }}
{{- with $m.relabelings }}
relabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $m.metricRelabelings }}
metricRelabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "tollgate.monitorsExclusive" -}}
{{- if and .Values.monitoring.serviceMonitor.enabled .Values.monitoring.podMonitor.enabled }}
{{- fail "\n\nmonitoring.serviceMonitor.enabled and monitoring.podMonitor.enabled are both true: Prometheus would scrape every target twice. Enable one." }}
{{- end }}
{{- end }}
