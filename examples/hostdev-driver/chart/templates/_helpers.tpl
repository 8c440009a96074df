{{/* The name of every object of the release: the release name, at most 52 characters so that
     the DaemonSet's pod names (name + 11) stay within 63. */}}
{{- define "driver.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{- define "driver.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "driver.labels" -}}
{{ include "driver.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "driver.serviceAccountName" -}}
{{- default (include "driver.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}
